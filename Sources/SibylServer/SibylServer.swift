import Assistant
import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `sibyl serve`: Sibyl's HTTP API (`/api/v1`), its OpenAI-compatible endpoints (`/v1`), health
/// checks, and the Monocle relay WebSocket, on one router over one `SibylRuntime`.
public struct SibylServer: Sendable {
    /// Where to listen and what to accept.
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var limits: ServerLimits

        public init(host: String = "127.0.0.1", port: Int = 8080, limits: ServerLimits = ServerLimits()) {
            self.host = host
            self.port = port
            self.limits = limits
        }

        /// The configuration the settings give (`serve.*`).
        public init(settingsOf runtime: SibylRuntime) {
            let settings = runtime.settings
            host = settings.value("serve.host") ?? "127.0.0.1"
            port = settings.integer("serve.port") ?? 8080
            limits = ServerLimits(
                jsonBodyBytes: (settings.integer("serve.max_body_mb") ?? 2) << 20,
                uploadBytes: (settings.integer("serve.max_upload_mb") ?? 100) << 20,
                filesPerUpload: settings.integer("serve.max_upload_files") ?? 100,
                turnsPerClient: settings.integer("serve.max_turns_per_client") ?? 4
            )
        }
    }

    public let runtime: SibylRuntime
    public let configuration: Configuration
    let state: ServerState

    public init(runtime: SibylRuntime, configuration: Configuration) {
        self.runtime = runtime
        self.configuration = configuration
        state = ServerState(runtime: runtime, limits: configuration.limits)
    }

    /// The router with every route; tests drive it directly.
    public func router() -> Router<SibylRequestContext> {
        let router = Router(context: SibylRequestContext.self)
        router.add(middleware: RequestLogMiddleware(logger: runtime.logger))
        HealthRoutes(state: state).add(to: router)
        let api = router.group("api/v1").add(middleware: APIErrorMiddleware())
        for routes in apiRoutes { routes.add(to: api) }
        OpenAICompatibleRoutes(state: state).add(to: router.group("v1").add(middleware: OpenAIErrorMiddleware()))
        return router
    }

    var apiRoutes: [any RouteCollectionAdding] {
        [
            SpecRoutes(), ConversationRoutes(state: state), TurnRoutes(state: state), PersonaRoutes(state: state),
            DocumentRoutes(state: state), SearchRoutes(state: state), AudioRoutes(state: state), ImageRoutes(state: state),
            LogRoutes(state: state), SettingsRoutes(state: state), ModelRoutes(state: state), GlassesRoutes(state: state),
        ]
    }

    /// The HTTP application, with WebSocket upgrades for the relay route.
    public func application(onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = router()
        return Application(
            router: router,
            server: .http1WebSocketUpgrade(webSocketRouter: router),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Sibyl"),
            onServerRunning: onServerRunning,
            logger: runtime.logger
        )
    }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully: answers under way get
    /// `serve.shutdown_grace` seconds to finish and are then saved as cancelled, open streams end,
    /// and the local engines are stopped.
    public func run(onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) async throws {
        try await serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint], onServerRunning: onServerRunning).run()
        await runtime.shutdown()
    }

    /// The server and Sibyl's own shutdown work as one service group. Services shut down in the
    /// reverse of their order here, so answers under way are finished or saved first, while the
    /// HTTP server still carries their streams to the clients.
    public func serviceGroup(
        gracefulShutdownSignals: [UnixSignal] = [], onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> ServiceGroup {
        ServiceGroup(configuration: .init(
            services: [.init(service: application(onServerRunning: onServerRunning)), .init(service: state)],
            gracefulShutdownSignals: gracefulShutdownSignals,
            logger: runtime.logger
        ))
    }
}

/// A set of routes that adds itself to a router group.
protocol RouteCollectionAdding: Sendable {
    func add(to group: RouterGroup<SibylRequestContext>)
}
