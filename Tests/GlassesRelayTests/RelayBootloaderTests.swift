import Foundation
import Glasses
import GlassesRelay
import SecureDFU
import Synchronization
import Testing

/// The glasses' bootloader reached through the page: its messages on the relay, and a whole Secure
/// DFU install through it, the "page" carrying every write to an emulated bootloader.
@Suite(.timeLimit(.minutes(10)))
struct RelayBootloaderTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("SecureDFUTests/Fixtures/dfu")

    @Test func bootloaderMessagesKeepTheirShapeOnTheWire() throws {
        let control = RelayMessage.bootloaderBytes(.control, Data([0x60, 0x06, 0x01]))
        #expect(control.binary == Data([4, 0x60, 0x06, 0x01]))
        #expect(try RelayMessage(binary: Data([5, 9, 8])) == .bootloaderBytes(.packet, Data([9, 8])))
        #expect(try RelayMessage(text: #"{"type":"bootloaderConnected","maxWriteLength":100}"#) == .bootloaderConnected(maximumWriteLength: 100))
        #expect(try RelayMessage(text: #"{"type":"bootloaderDisconnected","reason":"out of range"}"#) == .bootloaderDisconnected(reason: "out of range"))
        #expect(RelayMessage.bootloaderConnectRequest.text == #"{"type":"connectBootloader"}"#)
        #expect(RelayMessage.bootloaderDisconnectRequest.text == #"{"type":"disconnectBootloader"}"#)
        // A write length no link has is refused, as is a channel the relay does not know.
        #expect(throws: RelayError.self) { try RelayMessage(text: #"{"type":"bootloaderConnected","maxWriteLength":5}"#) }
        #expect(throws: RelayError.self) { try RelayMessage(binary: Data([6, 1])) }
    }

    @Test func connectAsksThePageAndWaitsForItsAnswer() async throws {
        let page = Page()
        let transport = RelayTransport(kind: .monocle) { page.send($0) }
        let bootloader = transport.bootloader
        var events = bootloader.events.makeAsyncIterator()
        await #expect(throws: DFUError.self) { try await bootloader.writeControl(Data([1])) }
        let connecting = Task { try await bootloader.connect() }
        await page.waitFor(.bootloaderConnectRequest)
        // The page's answer comes through the glasses' transport, which hands it on.
        await transport.receive(.bootloaderConnected(maximumWriteLength: 20))
        try await connecting.value
        #expect(await events.next() == .connected(maximumWriteLength: 20))
        #expect(await bootloader.bootloaderInReach())
        await transport.receive(.bootloaderBytes(.control, Data([0x60, 0x01, 0x01])))
        #expect(await events.next() == .notification(Data([0x60, 0x01, 0x01])))
        try await bootloader.writePacket(Data(repeating: 7, count: 45))
        #expect(page.messages.suffix(3) == [
            .bootloaderBytes(.packet, Data(repeating: 7, count: 20)), .bootloaderBytes(.packet, Data(repeating: 7, count: 20)),
            .bootloaderBytes(.packet, Data(repeating: 7, count: 5)),
        ])
        await transport.receive(.bootloaderDisconnected(reason: "the glasses restarted"))
        #expect(await events.next() == .disconnected(reason: "the glasses restarted"))

        // A page that cannot reach the bootloader says why, and the connect fails with it.
        let failing = Task { try await bootloader.connect() }
        await page.waitFor(.bootloaderConnectRequest, count: 2)
        await transport.receive(.bootloaderDisconnected(reason: "no device chosen"))
        await #expect(throws: DFUError.bootloaderNotFound("no device chosen")) { try await failing.value }
        // The browser leaving ends a connect under way and the events.
        let abandoned = Task { try await bootloader.connect() }
        await page.waitFor(.bootloaderConnectRequest, count: 3)
        await transport.browserLeft()
        await #expect(throws: DFUError.self) { try await abandoned.value }
        #expect(await events.next() == nil)
    }

    @Test func aFirmwarePackageInstallsThroughThePage() async throws {
        let package = try DFUPackage(contentsOf: Self.fixtures.appendingPathComponent("monocle-firmware-test.zip"))
        var settings = EmulatedBootloader.Settings()
        try settings.trust(publicKeyPEM: String(contentsOf: Self.fixtures.appendingPathComponent("test-key-public.pem"), encoding: .utf8))
        let emulated = Mutex(EmulatedBootloader(settings: settings))
        let activated = Mutex<Data?>(nil)
        // The page: it reaches the bootloader when asked, and carries writes and notifications.
        let transport = Box<RelayTransport>()
        let largest = Mutex(0)
        let relay = RelayTransport(kind: .monocle) { message in
            let outcome: EmulatedBootloader.Outcome?
            switch message {
            case .bootloaderConnectRequest:
                Task { await transport.value?.receive(.bootloaderConnected(maximumWriteLength: 100)) }
                return
            case .bootloaderBytes(.control, let bytes): outcome = emulated.withLock { $0.control(bytes) }
            case .bootloaderBytes(.packet, let bytes):
                largest.withLock { $0 = max($0, bytes.count) }
                outcome = emulated.withLock { $0.packet(bytes) }
            default: outcome = nil
            }
            guard let outcome else { return }
            if let image = outcome.activated { activated.withLock { $0 = image } }
            for notification in outcome.notifications { await transport.value?.receive(.bootloaderBytes(.control, notification)) }
        }
        transport.value = relay
        let progress = Mutex<[Double]>([])
        try await SecureDFUClient(transport: relay.bootloader).update(package) { step in progress.withLock { $0.append(step.fraction) } }
        #expect(activated.withLock { $0 } == package.firmware)
        #expect(largest.withLock { $0 } == 100, "packets go in pieces of the page's write length")
        #expect(progress.withLock { $0.last } == 1)
    }

    /// What the transport sent the page, in order.
    final class Page: Sendable {
        private struct Waiter {
            var message: RelayMessage
            var count: Int
            var continuation: CheckedContinuation<Void, Never>
        }

        private let state = Mutex<(sent: [RelayMessage], waiters: [Waiter])>(([], []))
        var messages: [RelayMessage] { state.withLock { $0.sent } }

        func send(_ message: RelayMessage) {
            let ready = state.withLock { state -> [Waiter] in
                state.sent.append(message)
                let sent = state.sent
                let ready = state.waiters.filter { waiter in sent.filter { $0 == waiter.message }.count >= waiter.count }
                state.waiters.removeAll { waiter in sent.filter { $0 == waiter.message }.count >= waiter.count }
                return ready
            }
            for waiter in ready { waiter.continuation.resume() }
        }

        /// Returns once `message` was sent `count` times (the connect sends it from a task of its own).
        func waitFor(_ message: RelayMessage, count: Int = 1) async {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> Bool in
                    if state.sent.filter({ $0 == message }).count >= count { return true }
                    state.waiters.append(Waiter(message: message, count: count, continuation: continuation))
                    return false
                }
                if done { continuation.resume() }
            }
        }
    }

    final class Box<Value: Sendable>: Sendable {
        private let stored = Mutex<Value?>(nil)
        var value: Value? {
            get { stored.withLock { $0 } }
            set { stored.withLock { $0 = newValue } }
        }
    }
}
