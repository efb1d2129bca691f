import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import Monocle
import NIOCore
import Synchronization

/// A stand-alone relay server on loopback (`sibyl monocle connect --relay`): the relay routes
/// (`MonocleRelay`) on a server of their own. `sibyl serve` mounts the same routes on its router.
public final class MonocleRelayServer: Sendable {
    /// The path browsers connect to.
    public static let path = MonocleRelay.path
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
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.get("/") { _, _ in "Sibyl's Monocle relay: connect a WebSocket to \(MonocleRelayServer.path)\n" }
        router.addMonocleRelay(at: RouterPath(MonocleRelay.path), session: session)
        let app = Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router),
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
