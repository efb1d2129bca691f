import Foundation
import HummingbirdWSClient
import Logging
import Monocle
import MonocleEmulator
import MonocleRelay
import NIOCore
import Synchronization
import Testing

/// The WebSocket relay, with a stand-in "browser" that carries bytes between Sibyl and the virtual glasses.
@Suite(.enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct RelayTests {
    @Test func relayMessagesRoundTripAndBadOnesAreRefused() throws {
        for message in [RelayMessage.connected(maximumWriteLength: 253), .disconnected(reason: "out of range"), .connectRequest, .disconnectRequest] {
            #expect(try RelayMessage(text: try #require(message.text)) == message)
        }
        let bytes = RelayMessage.bytes(.data, Data("res:hi".utf8))
        #expect(try RelayMessage(binary: try #require(bytes.binary)) == bytes)
        #expect(throws: RelayError.self) { try RelayMessage(binary: Data([9, 1])) }
        #expect(throws: RelayError.self) { try RelayMessage(text: "{\"type\":\"connected\",\"maxWriteLength\":5}") }
        #expect(throws: RelayError.self) { try RelayMessage(text: "hello") }
    }

    @Test func aBrowserCarriesTheBytesWhileSibylRunsTheController() async throws {
        try await TestGlasses.with { glasses in
            let observer = ControllerTests.Observer()
            let controllers = Controllers()
            let app = try DeviceApp.sibyl()
            let server = try await MonocleRelayServer.start { transport in
                let controller = MonocleController(transport: transport, app: app, options: ControllerTests.fastOptions())
                controllers.add(controller)
                let following = observer.follow(controller)
                await controller.run()
                following.cancel()
            }
            let phone = EmulatorTransport(emulator: glasses)
            let browser = Task { try await Self.browser(url: server.url, glasses: phone) }

            // Generous ceilings, only against hangs: on a loaded machine the app upload through the
            // MicroPython REPL alone has taken longer than the 30 s these once were.
            func running(_ count: Int) async throws -> DeviceInfo {
                try await observer.running(count, timeout: .seconds(180))
            }

            #expect(try await running(1).uploaded)
            _ = try await glasses.waitForScreen(timeout: .seconds(180)) { $0.lines.contains { $0.lowercased().contains("tap") } }
            let controller = try #require(controllers.first)
            try await controller.show("Relayed through the browser — ça marche.")
            _ = try await glasses.waitForScreen(timeout: .seconds(180)) { $0.lines.joined(separator: " ").contains("ça marche") }

            // The glasses walk away; the browser reports it, Sibyl asks it to reconnect, no upload this time.
            await glasses.disconnect()
            #expect(try await !running(2).uploaded)

            await controller.stop()
            browser.cancel()
            await server.stop()
        }
    }

    /// The controllers the relay sessions made.
    final class Controllers: Sendable {
        private let all = Mutex<[MonocleController]>([])
        func add(_ controller: MonocleController) { all.withLock { $0.append(controller) } }
        var first: MonocleController? { all.withLock { $0.first } }
    }

    /// What a web page does: relays the glasses' notifications to Sibyl, and Sibyl's writes to the glasses.
    static func browser(url: String, glasses: EmulatorTransport) async throws {
        try await WebSocketClient.connect(url: url, logger: Logger(label: "test-browser")) { inbound, outbound, _ in
            let forwarding = Task {
                for await event in glasses.events {
                    let message: RelayMessage
                    switch event {
                    case .connected(let length): message = .connected(maximumWriteLength: length)
                    case .received(let channel, let bytes): message = .bytes(channel, bytes)
                    case .disconnected(let reason): message = .disconnected(reason: reason)
                    }
                    if let binary = message.binary {
                        try await outbound.write(.binary(ByteBuffer(data: binary)))
                    } else if let text = message.text {
                        try await outbound.write(.text(text))
                    }
                }
            }
            defer { forwarding.cancel() }
            for try await frame in inbound.messages(maxSize: 1 << 16) {
                switch frame {
                case .text(let text):
                    switch try RelayMessage(text: text) {
                    case .connectRequest: try await glasses.connect()
                    case .disconnectRequest: await glasses.disconnect()
                    default: break
                    }
                case .binary(let buffer):
                    if case .bytes(let channel, let bytes) = try RelayMessage(binary: Data(buffer: buffer)) {
                        try await glasses.write(bytes, to: channel)
                    }
                }
            }
        }
    }
}
