import Foundation
import HummingbirdWSClient
import Logging
import Glasses
import GlassesRelay
import Monocle
import MonocleEmulator
import NIOCore
import SibylTestSupport
import Synchronization
import Testing

/// The WebSocket relay, with a stand-in "browser" that carries bytes between Sibyl and the virtual Monocle.
@Suite(.timeLimit(.minutes(20)), .enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct RelayTests {
    @Test func aBrowserCarriesTheBytesWhileSibylRunsTheConnection() async throws {
        try await TestGlasses.with { glasses in
            let observer = ConnectionObserver()
            let connections = Connections()
            let app = try DeviceApp.sibyl()
            let server = try await GlassesRelayServer.start { transport in
                guard let connection = try? MonocleConnectionTests.connection(transport, app: app) else { return }
                connections.add(connection)
                let following = observer.follow(connection)
                await connection.run()
                following.cancel()
            }
            let offered = try await RelayGlassesServer.start(glasses: EmulatorTransport(emulator: glasses), kind: .monocle)
            let browser = Task { try await Self.bridge(glasses: offered.url, sibyl: server.url) }
            try await withTeardown {
                // Generous ceilings, only against hangs: on a loaded machine the app upload through the
                // MicroPython REPL alone has taken longer than the 30 s these once were.
                func running(_ count: Int) async throws -> GlassesDeviceInfo {
                    try await observer.running(count, timeout: .seconds(600))
                }

                #expect(try await running(1).uploaded)
                _ = try await glasses.waitForScreen(timeout: .seconds(600)) { $0.lines.contains { $0.lowercased().contains("tap") } }
                let connection = try #require(connections.first)
                try await connection.show("Relayed through the browser — ça marche.")
                _ = try await glasses.waitForScreen(timeout: .seconds(600)) { $0.lines.joined(separator: " ").contains("ça marche") }

                // The glasses walk away; the browser reports it, Sibyl asks it to reconnect, no upload this time.
                await glasses.disconnect()
                #expect(try await !running(2).uploaded)
            } teardown: {
                await Self.stop(connections: connections, browser: browser, sibyl: server, offered: offered)
            }
        }
    }

    @Test func theOfferedGlassesHaveOnePeerAtATime() async throws {
        try await TestGlasses.with { glasses in
            let offered = try await RelayGlassesServer.start(glasses: EmulatorTransport(emulator: glasses), kind: .monocle)
            let logger = Logger(label: "test-peer")
            try await withTeardown {
                try await WebSocketClient.connect(url: offered.url, logger: logger) { inbound, outbound, _ in
                    var messages = inbound.messages(maxSize: 1 << 16).makeAsyncIterator()
                    #expect(try await messages.next() == .text(#"{"maxWriteLength":253,"type":"connected"}"#))
                    // A second peer is told the glasses are taken, and let go.
                    try await WebSocketClient.connect(url: offered.url, logger: logger) { second, _, _ in
                        var refusal = second.messages(maxSize: 1 << 16).makeAsyncIterator()
                        let message = try await refusal.next()
                        guard case .text(let text) = message else { Issue.record("expected a text message, got \(String(describing: message))"); return }
                        #expect(try RelayMessage(text: text) == .disconnected(reason: "the glasses are already connected to another peer"))
                        #expect(try await refusal.next() == nil)
                    }
                    // The first peer still has them: the REPL answers a Ctrl-C, Ctrl-A.
                    try await outbound.write(.binary(ByteBuffer(bytes: [1, 0x03, 0x01])))
                    var serial = ""
                    while !serial.contains("raw REPL; CTRL-B to exit"), let message = try await messages.next() {
                        if case .binary(let buffer) = message, buffer.readableBytesView.first == 1 {
                            serial += String(decoding: buffer.readableBytesView.dropFirst(), as: UTF8.self)
                        }
                    }
                    #expect(serial.contains("raw REPL; CTRL-B to exit"))
                    // A frame that is not the relay's is logged and skipped; the link stays up.
                    try await outbound.write(.binary(ByteBuffer(bytes: [7, 1, 2])))
                    try await outbound.write(.binary(ByteBuffer(bytes: [1] + Array("print(6*7)\u{04}".utf8))))
                    serial = ""
                    while !serial.contains("42"), let message = try await messages.next() {
                        if case .binary(let buffer) = message { serial += String(decoding: buffer.readableBytesView.dropFirst(), as: UTF8.self) }
                    }
                    #expect(serial.contains("42"))
                }
            } teardown: {
                await offered.stop()
            }
        }
    }

    /// The connections the relay sessions made.
    final class Connections: Sendable {
        private let all = Mutex<[GlassesConnection]>([])
        func add(_ connection: GlassesConnection) { all.withLock { $0.append(connection) } }
        var first: GlassesConnection? { all.withLock { $0.first } }
        var everyOne: [GlassesConnection] { all.withLock { $0 } }
    }

    /// Stops what a relay test started, whatever happened: Sibyl's connections, the browser's
    /// bridge, Sibyl's relay and the offered glasses, awaiting each (the bridge with a ceiling
    /// against hangs: it ends once both its sides are gone).
    static func stop(connections: Connections, browser: Task<Void, any Error>, sibyl: GlassesRelayServer, offered: RelayGlassesServer) async {
        for connection in connections.everyOne { await connection.stop() }
        browser.cancel()
        await sibyl.stop()
        await offered.stop()
        _ = try? await waitFor("the browser's bridge to end", within: .seconds(60)) { _ = await browser.result }
    }

    /// What a web page does, reduced to its bytes: copies every message between the glasses (offered
    /// by `RelayGlassesServer`, as the page's Bluetooth side) and Sibyl's relay, both ways, unchanged.
    static func bridge(glasses: String, sibyl: String) async throws {
        let logger = Logger(label: "test-browser")
        try await WebSocketClient.connect(url: glasses, logger: logger) { glassesIn, glassesOut, _ in
            try await WebSocketClient.connect(url: sibyl, logger: logger) { sibylIn, sibylOut, _ in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await copy(glassesIn, to: sibylOut) }
                    group.addTask { try await copy(sibylIn, to: glassesOut) }
                    try await group.next()
                    group.cancelAll()
                }
            }
        }
    }

    static func copy(_ inbound: WebSocketInboundStream, to outbound: WebSocketOutboundWriter) async throws {
        for try await message in inbound.messages(maxSize: 1 << 16) {
            switch message {
            case .binary(let buffer): try await outbound.write(.binary(buffer))
            case .text(let text): try await outbound.write(.text(text))
            }
        }
    }
}
