import Hummingbird
import HummingbirdWebSocket
public import Logging

/// A stand-alone relay server on loopback (`sibyl glasses connect --relay`): the relay routes
/// (``GlassesRelay``) on a server of their own. `sibyl serve` mounts the same routes on its router.
public final class GlassesRelayServer: Sendable {
    /// The path browsers connect to.
    public static let path = GlassesRelay.path
    private let server: LoopbackWebSocketServer

    /// The port the server listens on.
    public var port: Int { server.port }
    /// The URL a browser connects to.
    public var url: String { "ws://127.0.0.1:\(port)\(Self.path)" }

    private init(server: LoopbackWebSocketServer) {
        self.server = server
    }

    /// Starts listening on loopback (`port` 0 picks a free one): each browser that reports
    /// connected glasses, Monocle or Frame, gets a session of their kind.
    public static func start(
        port: Int = 0,
        logger: Logger = Logger(label: "sibyl.glasses-relay"),
        session: @escaping @Sendable (RelayTransport) async -> Void
    ) async throws -> GlassesRelayServer {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.get("/") { _, _ in "Sibyl's glasses relay: connect a WebSocket to \(GlassesRelayServer.path)\n" }
        router.addGlassesRelay(at: RouterPath(GlassesRelay.path)) { transport, _, _ in await session(transport) }
        return GlassesRelayServer(server: try await LoopbackWebSocketServer.start(router: router, port: port, logger: logger))
    }

    /// Stops listening and closes every browser connection.
    public func stop() async {
        await server.stop()
    }
}
