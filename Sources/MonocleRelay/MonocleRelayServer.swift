import Hummingbird
import HummingbirdWebSocket
import Logging
import Monocle

/// A stand-alone relay server on loopback (`sibyl monocle connect --relay`): the relay routes
/// (`MonocleRelay`) on a server of their own. `sibyl serve` mounts the same routes on its router.
public final class MonocleRelayServer: Sendable {
    /// The path browsers connect to.
    public static let path = MonocleRelay.path
    private let server: LoopbackWebSocketServer

    /// The port the server listens on.
    public var port: Int { server.port }
    /// The URL a browser connects to.
    public var url: String { "ws://127.0.0.1:\(port)\(Self.path)" }

    private init(server: LoopbackWebSocketServer) {
        self.server = server
    }

    /// Starts listening on loopback (`port` 0 picks a free one).
    public static func start(
        port: Int = 0,
        logger: Logger = Logger(label: "sibyl.monocle-relay"),
        session: @escaping @Sendable (RelayTransport) async -> Void
    ) async throws -> MonocleRelayServer {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.get("/") { _, _ in "Sibyl's Monocle relay: connect a WebSocket to \(MonocleRelayServer.path)\n" }
        router.addMonocleRelay(at: RouterPath(MonocleRelay.path), session: session)
        return MonocleRelayServer(server: try await LoopbackWebSocketServer.start(router: router, port: port, logger: logger))
    }

    /// Starts listening on loopback for Monocle and Frame alike (`GlassesRelay`): each browser that
    /// reports connected glasses gets a session of their kind.
    public static func start(
        port: Int = 0,
        logger: Logger = Logger(label: "sibyl.glasses-relay"),
        glasses session: @escaping @Sendable (RelayedGlasses) async -> Void
    ) async throws -> MonocleRelayServer {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.get("/") { _, _ in "Sibyl's glasses relay: connect a WebSocket to \(MonocleRelayServer.path)\n" }
        router.addGlassesRelay(at: RouterPath(MonocleRelay.path)) { glasses, _ in await session(glasses) }
        return MonocleRelayServer(server: try await LoopbackWebSocketServer.start(router: router, port: port, logger: logger))
    }

    /// Stops listening and closes every browser connection.
    public func stop() async {
        await server.stop()
    }
}
