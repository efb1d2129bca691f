import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Monocle
import MonocleRelay
import Synchronization
import Testing

/// Frame through the Web Bluetooth relay: the virtual Frame behind a stand-in page, Sibyl's
/// controller on a `FrameRelayTransport`.
@Suite struct FrameRelayTests {
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
        func relay(to sibyl: FrameRelayTransport) {
            let bluetooth = bluetooth
            forwarding.withLock {
                $0 = Task {
                    for await event in bluetooth.events {
                        switch event {
                        case .connected: sibyl.receive(.frameConnected(mtu: nil))
                        case .received(let bytes): sibyl.receive(.frameBytes(bytes))
                        case .disconnected(let reason): sibyl.receive(.disconnected(reason: reason))
                        }
                    }
                }
            }
        }

        /// What Sibyl sends the page.
        func fromSibyl(_ message: RelayMessage) async throws {
            switch message {
            case .frameBytes(let packet):
                written.withLock { $0.append(packet) }
                try await bluetooth.write(packet)
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
        let transport = FrameRelayTransport { message in try await page.fromSibyl(message) }
        page.relay(to: transport)
        let controller = FrameController(transport: transport, app: .sibyl(), options: FrameControllerTests.fastOptions())
        let observer = FrameControllerTests.Observer()
        let following = observer.follow(controller)
        let serving = Task { await controller.run() }
        defer {
            serving.cancel()
            following.cancel()
            page.stop()
        }

        let first = try await observer.running()
        #expect(first.mtu == mtu, "the MTU Frame printed, plus 4")
        #expect(first.uploaded)
        let written = page.written.withLock { $0 }
        #expect(written.prefix(2) == [Data([FrameWrite.breakByte]), Data(FrameRelayTransport.mtuQuery.utf8)], "the MTU is asked for first")
        #expect(written.allSatisfy { $0.count <= mtu - 3 }, "every packet fits the link")
        _ = try await observer.until("the idle screen") { FrameControllerTests.shownText(emulator).contains("Tap to ask") ? true : nil }

        // The glasses walk away; the page reports it; Sibyl asks again, and the app is kept.
        page.bluetooth.drop(reason: "walked out of range")
        let second = try await observer.running(2)
        #expect(second.mtu == mtu)
        #expect(!second.uploaded)

        await controller.stop()
        await emulator.powerOff()
    }

    @Test func withoutAnAnswerTheSmallestMTUIsAssumed() async throws {
        let sent = Mutex<[RelayMessage]>([])
        var options = FrameRelayTransport.Options()
        options.answerTimeout = .milliseconds(50)
        options.breakPause = .milliseconds(1)
        options.attempts = 2
        let transport = FrameRelayTransport(options: options) { message in sent.withLock { $0.append(message) } }
        var events = transport.events.makeAsyncIterator()
        // Frame's chatter that is not a number (the break's error) does not count as the answer.
        transport.receive(.frameConnected(mtu: nil))
        transport.receive(.frameBytes(Data("main.lua:3: break signal".utf8)))
        #expect(await events.next() == .connected(mtu: 23))
        #expect(sent.withLock { $0.filter { $0 == .frameBytes(Data(FrameRelayTransport.mtuQuery.utf8)) }.count } == 2)
        await #expect(throws: FrameError.self) { try await transport.write(Data(repeating: 0x41, count: 21)) }
        try await transport.write(Data(repeating: 0x41, count: 20))

        // Told again without an MTU: nothing new, nothing asked.
        let asked = sent.withLock { $0.count }
        transport.receive(.frameConnected(mtu: nil))
        try await Task.sleep(for: .milliseconds(100))
        #expect(sent.withLock { $0.count } == asked)
        // A peer that knows the MTU says so, and nothing is asked; notifications then reach the controller.
        transport.receive(.frameConnected(mtu: 185))
        #expect(await events.next() == .connected(mtu: 185))
        transport.receive(.frameBytes(Data([0x01, 0x42])))
        #expect(await events.next() == .received(Data([0x01, 0x42])))
        transport.receive(.bytes(.serial, Data([1])))  // Monocle's: ignored
        transport.receive(.disconnected(reason: "gone"))
        #expect(await events.next() == .disconnected(reason: "gone"))
        await #expect(throws: FrameError.self) { try await transport.write(Data([0x03])) }
        transport.browserLeft()
        #expect(await events.next() == nil)
    }

    @Test func theMTUAnswerIsANumberThatFitsALink() {
        #expect(FrameRelayTransport.maximumLength(in: Data("243".utf8)) == 243)
        #expect(FrameRelayTransport.maximumLength(in: Data(" 96\n".utf8)) == 96)
        #expect(FrameRelayTransport.maximumLength(in: Data("-1".utf8)) == nil)
        #expect(FrameRelayTransport.maximumLength(in: Data([0x01]) + Data("243".utf8)) == nil, "data, not a print")
        #expect(FrameRelayTransport.maximumLength(in: Data("nil".utf8)) == nil)
    }

    /// Over real WebSockets: the virtual Frame offered as a page would offer it (`RelayGlassesServer`),
    /// a bridge copying both ways, and Sibyl's relay making a Frame session because the page said so.
    @Test func theRelayMakesAFrameSessionWhenThePageReportsAFrame() async throws {
        let flash = FileManager.default.temporaryDirectory.appending(path: "sibyl-frame-relay-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: flash) }
        let emulator = try FrameEmulator(flash: flash)
        try await emulator.powerOn()
        let observer = FrameControllerTests.Observer()
        let kinds = Mutex<[String]>([])
        let controllers = Mutex<[FrameController]>([])
        let server = try await MonocleRelayServer.start { glasses in
            kinds.withLock { $0.append(glasses.kind) }
            guard case .frame(let transport) = glasses else { return }
            let controller = FrameController(transport: transport, app: .sibyl(), options: FrameControllerTests.fastOptions())
            controllers.withLock { $0.append(controller) }
            let following = observer.follow(controller)
            await controller.run()
            following.cancel()
        }
        let offered = try await RelayGlassesServer.start(frame: EmulatorFrameTransport(emulator: emulator, mtu: 185))
        #expect(offered.url.hasSuffix("/frame"))
        let browser = Task { try await RelayTests.bridge(glasses: offered.url, sibyl: server.url) }

        let running = try await observer.running()
        #expect(running.mtu == 185, "the peer's MTU, told in its connected message")
        #expect(kinds.withLock { $0 } == ["frame"])
        _ = try await observer.until("the idle screen") { FrameControllerTests.shownText(emulator).contains("Tap to ask") ? true : nil }

        for controller in controllers.withLock({ $0 }) { await controller.stop() }
        browser.cancel()
        await server.stop()
        await offered.stop()
        await emulator.powerOff()
    }
}
