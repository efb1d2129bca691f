import Hummingbird
import HummingbirdWebSocket
import Logging
import Glasses
import Synchronization

/// A Hummingbird server with WebSocket upgrades on 127.0.0.1, for the relay's two stand-alone
/// servers: the one browsers carry glasses to, and the one that offers glasses.
final class LoopbackWebSocketServer: Sendable {
    private let task: Task<Void, any Error>
    /// The port it listens on.
    let port: Int

    private init(task: Task<Void, any Error>, port: Int) {
        self.task = task
        self.port = port
    }

    /// Starts serving `router` (`port` 0 picks a free one) and returns once it listens.
    static func start(router: Router<BasicWebSocketRequestContext>, port: Int, logger: Logger) async throws -> LoopbackWebSocketServer {
        let (ready, readyContinuation) = AsyncStream<Int>.makeStream()
        // The server's own shutdown chatter (a cancelled child channel) is not worth a line.
        var serverLogger = logger
        serverLogger.logLevel = .critical
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
        var listening = 0
        for await port in ready { listening = port }
        guard listening != 0 else {
            _ = await task.result
            throw GlassesError.transport("could not listen on 127.0.0.1 port \(port)")
        }
        return LoopbackWebSocketServer(task: task, port: listening)
    }

    /// Stops listening and closes every connection.
    func stop() async {
        task.cancel()
        _ = await task.result
    }
}
