import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Monocle
import NIOCore
import Synchronization

/// A WebSocket endpoint (`/monocle`) where a browser page with Web Bluetooth carries Monocle's bytes.
///
/// Each browser connection becomes a `RelayTransport`, handed to `session`, which runs the
/// controller on it; the session ends when the browser goes.
public final class MonocleRelayServer: Sendable {
    /// The path browsers connect to.
    public static let path = "/monocle"
    private let portBox = Mutex(0)
    private let task = Mutex<Task<Void, any Error>?>(nil)

    /// The port the server listens on.
    public var port: Int { portBox.withLock { $0 } }
    /// The URL a browser connects to.
    public var url: String { "ws://127.0.0.1:\(port)\(Self.path)" }

    private init() {}

    /// Starts listening on loopback (`port` 0 picks a free one).
    public static func start(
        port: Int = 0,
        logger: Logger = Logger(label: "sibyl.monocle-relay"),
        session: @escaping @Sendable (RelayTransport) async -> Void
    ) async throws -> MonocleRelayServer {
        let server = MonocleRelayServer()
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        // The server's own shutdown chatter (a cancelled child channel) is not worth a line.
        var serverLogger = logger
        serverLogger.logLevel = .critical
        let router = Router()
        router.get("/") { _, _ in "Sibyl's Monocle relay: connect a WebSocket to \(MonocleRelayServer.path)\n" }
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade { request, _, _ in
                guard request.path == MonocleRelayServer.path else { return .dontUpgrade }
                return .upgrade([:]) { inbound, outbound, _ in
                    let transport = RelayTransport { message in
                        if let binary = message.binary {
                            try await outbound.write(.binary(ByteBuffer(data: binary)))
                        } else if let text = message.text {
                            try await outbound.write(.text(text))
                        }
                    }
                    let running = Task { await session(transport) }
                    defer {
                        transport.browserLeft()
                        running.cancel()
                    }
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        do {
                            switch message {
                            case .binary(let buffer): transport.receive(try RelayMessage(binary: Data(buffer: buffer)))
                            case .text(let text): transport.receive(try RelayMessage(text: text))
                            }
                        } catch {
                            logger.warning("\(error.localizedDescription)")
                        }
                    }
                }
            },
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in
                readyContinuation.yield(channel.localAddress?.port ?? 0)
                readyContinuation.finish()
            },
            logger: serverLogger
        )
        let task = Task { try await app.run() }
        server.task.withLock { $0 = task }
        for await port in ready {
            server.portBox.withLock { $0 = port }
        }
        guard server.port != 0 else {
            _ = await task.result
            throw MonocleError.transport("the relay could not listen on port \(port)")
        }
        return server
    }

    /// Stops listening and closes every browser connection.
    public func stop() async {
        let task = self.task.withLock { $0 }
        task?.cancel()
        _ = await task?.result
    }
}
