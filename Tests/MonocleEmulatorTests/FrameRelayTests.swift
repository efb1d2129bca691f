import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Glasses
import GlassesRelay
import SibylCore
import SibylTestSupport
import Synchronization
import Testing

/// Frame through the Web Bluetooth relay: the virtual Frame behind a stand-in page, Sibyl's
/// connection on a `RelayTransport` of Frame's kind.
@Suite(.timeLimit(.minutes(10))) struct FrameRelayTests {
    /// A page reduced to what it does for Frame: `connected` with the kind and no MTU (a browser
    /// cannot read it), every notification on channel 3, every channel-3 packet written whole.
    final class Page: Sendable {
        let bluetooth: EmulatorFrameTransport
        let written = Mutex<[Data]>([])
        private let forwarding = Mutex<Task<Void, Never>?>(nil)

        init(bluetooth: EmulatorFrameTransport) {
            self.bluetooth = bluetooth
        }

        /// Carries the glasses' events to `sibyl` until cancelled.
        func relay(to sibyl: RelayTransport) {
            let bluetooth = bluetooth
            forwarding.withLock {
                $0 = Task {
                    for await event in bluetooth.events {
                        switch event {
                        case .connected: await sibyl.receive(.frameConnected(mtu: nil))
                        case .received(let channel, let bytes): await sibyl.receive(.bytes(channel, bytes))
                        case .disconnected(let reason): await sibyl.receive(.disconnected(reason: reason))
                        }
                    }
                }
            }
        }

        /// What Sibyl sends the page.
        func fromSibyl(_ message: RelayMessage) async throws {
            switch message {
            case .bytes(.frame, let packet):
                written.withLock { $0.append(packet) }
                try await bluetooth.write(packet, to: .frame)
            case .connectRequest: try await bluetooth.connect()
            case .disconnectRequest: await bluetooth.disconnect()
            default: Issue.record("Sibyl sent a Frame page \(message)")
            }
        }

        func stop() {
            forwarding.withLock { $0?.cancel() }
        }
    }

    @Test(arguments: [247, 100])
    func sibylAsksFrameForTheMTUAndRunsTheAppThroughThePage(mtu: Int) async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-relay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        let emulator = try FrameEmulator(flash: flash)
        try await emulator.powerOn()
        let page = Page(bluetooth: EmulatorFrameTransport(emulator: emulator, mtu: mtu))
        let transport = RelayTransport(kind: .frame) { message in try await page.fromSibyl(message) }
        page.relay(to: transport)
        defer { page.stop() }
        let connection = GlassesConnection(transport: transport, driver: FrameDriver(options: .fast), options: .fast)
        try await withTeardown {
            try await connection.serve { observer in
                let first = try await observer.running()
                #expect(first.mtu == mtu, "the MTU Frame printed, plus 4")
                #expect(first.uploaded)
                let written = page.written.withLock { $0 }
                #expect(written.prefix(2) == [Data([FrameWrite.breakByte]), Data(RelayTransport.mtuQuery.utf8)], "the MTU is asked for first")
                #expect(written.allSatisfy { $0.count <= mtu - 3 }, "every packet fits the link")
                _ = try await observer.until("the idle screen") { FrameConnectionTests.shownText(emulator).contains("Tap to ask") ? true : nil }

                // The glasses walk away; the page reports it; Sibyl asks again, and the app is kept.
                page.bluetooth.drop(reason: "walked out of range")
                let second = try await observer.running(2)
                #expect(second.mtu == mtu)
                #expect(!second.uploaded)
            }
        } teardown: {
            await emulator.powerOff()
        }
    }

    /// Over real WebSockets: the virtual Frame offered as a page would offer it (`RelayGlassesServer`),
    /// a bridge copying both ways, and Sibyl's relay making a Frame session because the page said so.
    @Test func theRelayMakesAFrameSessionWhenThePageReportsAFrame() async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-relay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        let emulator = try FrameEmulator(flash: flash)
        try await emulator.powerOn()
        let observer = ConnectionObserver()
        let kinds = Mutex<[GlassesKind]>([])
        let connections = RelayTests.Connections()
        let server = try await GlassesRelayServer.start { transport in
            kinds.withLock { $0.append(transport.kind) }
            guard transport.kind == .frame else { return }
            let connection = GlassesConnection(transport: transport, driver: FrameDriver(options: .fast), options: .fast)
            connections.add(connection)
            let following = observer.follow(connection)
            await connection.run()
            following.cancel()
        }
        let offered = try await RelayGlassesServer.start(glasses: EmulatorFrameTransport(emulator: emulator, mtu: 185), kind: .frame)
        #expect(offered.url.hasSuffix("/frame"))
        let browser = Task { try await RelayTests.bridge(glasses: offered.url, sibyl: server.url) }
        try await withTeardown {
            let running = try await observer.running()
            #expect(running.mtu == 185, "the peer's MTU, told in its connected message")
            #expect(kinds.withLock { $0 } == [.frame])
            _ = try await observer.until("the idle screen") { FrameConnectionTests.shownText(emulator).contains("Tap to ask") ? true : nil }
        } teardown: {
            await RelayTests.stop(connections: connections, browser: browser, sibyl: server, offered: offered)
            await emulator.powerOff()
        }
    }
}
