public import Accounts
import Assistant
public import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import Logging
public import NIOCore
public import SibylConfig
public import SibylCore
public import ServiceLifecycle
public import SibylApp
public import UnixSignals

/// `sibyl serve`: Sibyl's HTTP API (`/api/v1`), its OpenAI-compatible endpoints (`/v1`), health
/// checks, and the Monocle relay WebSocket, on one router over one `SibylRuntime`.
public struct SibylServer: Sendable {
    /// Where to listen and what to accept.
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var limits: ServerLimits
        /// Whether callers must sign in (`serve.auth`).
        public var auth: AuthSetting
        /// Marks the session cookie Secure: set it when clients reach the server over HTTPS (a
        /// reverse proxy that terminates TLS).
        public var secureCookies: Bool
        /// HTTPS: the PEM certificate chain and private key files (`serve.tls_cert`, `serve.tls_key`).
        public var tls: (certificate: String, key: String)?
        /// Reverse proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed
        /// (`serve.trusted_proxies`, addresses separated by commas); none by default.
        public var trustedProxies: Set<String> = []
        /// A connection is closed when its first request head takes longer than this to arrive, or
        /// when it sends nothing for this long between requests (`serve.idle_timeout`): slow or
        /// silent clients cannot hold connections open for ever. Answers being written are not idle.
        public var idleTimeout: Duration
        /// Folders whose files the MCP tool `add_document` may read; none: it takes text only.
        public var mcpFolders: [URL] = []

        public init(
            host: String = Setting<String>.serveHost.defaultValue, port: Int = Setting<Int>.servePort.defaultValue, limits: ServerLimits = ServerLimits(),
            auth: AuthSetting = Setting<AuthSetting>.serveAuth.defaultValue, secureCookies: Bool = false,
            idleTimeout: Duration = .seconds(Setting<Int>.serveIdleTimeout.defaultValue)
        ) {
            self.host = host
            self.port = port
            self.limits = limits
            self.auth = auth
            self.secureCookies = secureCookies
            self.idleTimeout = idleTimeout
        }

        /// The configuration the settings give (`serve.*`).
        public init(settingsOf runtime: SibylRuntime) {
            let settings = runtime.settings
            host = settings[.serveHost]
            port = settings[.servePort]
            limits = ServerLimits(
                jsonBodyBytes: settings[.serveMaxBodyMB] << 20,
                uploadBytes: settings[.serveMaxUploadMB] << 20,
                filesPerUpload: settings[.serveMaxUploadFiles],
                turnsPerClient: settings[.serveMaxTurnsPerClient]
            )
            auth = settings[.serveAuth]
            secureCookies = settings[.serveSecureCookies]
            idleTimeout = .seconds(max(1, settings[.serveIdleTimeout]))
            if let certificate = settings[.serveTLSCertificate], let key = settings[.serveTLSKey] { tls = (certificate, key) }
            trustedProxies = Set((settings[.serveTrustedProxies] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        }
    }

    public let runtime: SibylRuntime
    public let configuration: Configuration
    let state: ServerState

    /// A server; `accounts` are required when it asks who is calling (see `prepare`).
    public init(runtime: SibylRuntime, configuration: Configuration, accounts: Accounts? = nil) {
        self.runtime = runtime
        self.configuration = configuration
        state = ServerState(
            runtime: runtime, limits: configuration.limits, accounts: accounts, secureCookies: configuration.secureCookies || configuration.tls != nil,
            listenHost: configuration.host, mcpFolders: configuration.mcpFolders
        )
    }

    /// The server `sibyl serve` runs: opens the accounts of the data directory and decides, from
    /// `serve.auth` and the address, whether callers sign in; with accounts but none made yet, it
    /// holds a one-time setup token. Refuses (`ServeRefusal`) an open server beyond loopback and
    /// half a TLS setup.
    public static func prepare(runtime: SibylRuntime, configuration: Configuration) async throws -> SibylServer {
        let settings = runtime.settings
        if (settings[.serveTLSCertificate] == nil) != (settings[.serveTLSKey] == nil) {
            throw ServeRefusal.halfTLS
        }
        if let tls = configuration.tls { _ = try Self.tlsConfiguration(tls) }  // unreadable files fail now, not at the first client
        // Accounts are shared with the other instances when the database is.
        let accounts = try runtime.sharedDatabase?.accounts() ?? Accounts(path: runtime.paths.accountsDatabase.path)
        let none = try await accounts.isEmpty
        let mode = try configuration.auth.resolve(host: configuration.host, accountsExist: !none)
        let server = SibylServer(runtime: runtime, configuration: configuration, accounts: mode == .accounts ? accounts : nil)
        if mode == .accounts, none { server.state.setupToken.withLock { $0 = Accounts.randomSecret() } }
        return server
    }

    /// With accounts on and none made yet: the one-time token that makes the first administrator
    /// (`POST /api/v1/auth/setup`); nil once there is one.
    public var setupToken: String? { state.setupToken.withLock { $0 } }

    /// The one-time page that makes the first administrator, at `base` (`http://HOST:PORT`): the
    /// token travels after `#`, so it is never sent in a request line or written to a log.
    public func setupLink(base: String) -> String? {
        setupToken.map { "\(base)/setup#\($0)" }
    }

    /// Whether callers must sign in.
    public var authMode: AuthMode { state.accounts == nil ? .open : .accounts }

    /// The router with every route; tests drive it directly.
    public func router() -> Router<SibylRequestContext> {
        let router = Router(context: SibylRequestContext.self)
        if !configuration.trustedProxies.isEmpty { router.add(middleware: ForwardedMiddleware(trusted: configuration.trustedProxies)) }
        router.add(middleware: RequestLogMiddleware(logger: runtime.logger))
        router.add(middleware: SecurityHeadersMiddleware())
        HealthRoutes(state: state).add(to: router)
        WebRoutes().add(to: router)
        let api = router.group("api/v1").add(middleware: APIErrorMiddleware())
        let openAI = router.group("v1").add(middleware: OpenAIErrorMiddleware())
        if let accounts = state.accounts {
            api.add(middleware: AuthMiddleware(accounts: accounts))
            openAI.add(middleware: AuthMiddleware(accounts: accounts))
        }
        for routes in apiRoutes { routes.add(to: api) }
        OpenAICompatibleRoutes(state: state).add(to: openAI)
        // Sibyl's MCP server (streamable HTTP), behind the same sign-in as the API.
        let mcp = router.group("mcp").add(middleware: APIErrorMiddleware())
        if let accounts = state.accounts { mcp.add(middleware: AuthMiddleware(accounts: accounts)) }
        MCPRoutes(state: state).add(to: mcp)
        return router
    }

    var apiRoutes: [any RouteCollectionAdding] {
        [
            SpecRoutes(), AuthRoutes(state: state), ConversationRoutes(state: state), TurnRoutes(state: state), PersonaRoutes(state: state), MemoryRoutes(state: state), EventRoutes(state: state),
            DocumentRoutes(state: state), SearchRoutes(state: state), AudioRoutes(state: state), ImageRoutes(state: state),
            LogRoutes(state: state), SettingsRoutes(state: state), ModelRoutes(state: state), GlassesRoutes(state: state), NoaRoutes(state: state),
        ]
    }

    /// The HTTP application, with WebSocket upgrades for the relay route.
    public func application(onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }) -> some ApplicationProtocol {
        let router = router()
        return Application(
            router: router,
            server: server(webSocketRouter: router),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "Sibyl"),
            onServerRunning: onServerRunning,
            logger: runtime.logger
        )
    }

    /// HTTP/1 with WebSocket upgrades. Silent or slow clients are cut off after
    /// `serve.idle_timeout`: before their first request head has fully arrived
    /// (`RequestHeadDeadline`), and between requests (Hummingbird's idle timer).
    func server(webSocketRouter router: Router<SibylRequestContext>) -> HTTPServerBuilder {
        let timeout = TimeAmount.seconds(configuration.idleTimeout.components.seconds)
        let webSocketResponder = router.buildResponder()
        let tls = configuration.tls
        return HTTPServerBuilder { responder in
            let plain = HeadDeadlineChannel(
                base: HTTP1WebSocketUpgradeChannel(
                    responder: responder, webSocketResponder: webSocketResponder, configuration: .init(http1: .init(idleTimeout: timeout))
                ),
                deadline: timeout
            )
            guard let tls else { return plain }
            return try TLSChannel(plain, tlsConfiguration: Self.tlsConfiguration(tls))
        }
    }

    /// TLS 1.2 and later with swift-nio-ssl's default ciphers, from PEM files.
    static func tlsConfiguration(_ files: (certificate: String, key: String)) throws -> TLSConfiguration {
        do {
            let certificates = try NIOSSLCertificate.fromPEMFile(files.certificate)
            let key = try NIOSSLPrivateKey(file: files.key, format: .pem)
            return TLSConfiguration.makeServerConfiguration(certificateChain: certificates.map { .certificate($0) }, privateKey: .privateKey(key))
        } catch {
            throw ServeRefusal.unreadableTLS(certificate: files.certificate, key: files.key, reason: "\(error)")
        }
    }

    /// `https` with TLS, else `http`.
    public var scheme: String { configuration.tls == nil ? "http" : "https" }

    /// Serves until SIGTERM or SIGINT, then shuts down gracefully within `serve.shutdown_grace`:
    /// answers under way get most of it to finish and are then saved as cancelled, open streams
    /// end, the local engines are stopped and the shared database is let go. At the deadline,
    /// whatever is left (a request waiting on a database that stopped answering) is cancelled; if
    /// something ignores that too, `overdue` runs a moment later (the CLI ends the process there).
    public func run(
        onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }, overdue: (@Sendable () -> Void)? = nil
    ) async throws {
        let group = serviceGroup(gracefulShutdownSignals: [.sigterm, .sigint], onServerRunning: onServerRunning)
        let serving = Task { try await group.run() }
        let enforcing = Task { [state, runtime] in
            for await deadline in state.shutdownDeadlines {
                try? await Task.sleep(until: deadline, clock: .continuous)
                guard !Task.isCancelled else { return }
                runtime.logger.warning("serve.shutdown_grace has passed: stopping what is still running")
                serving.cancel()
                try? await Task.sleep(for: Self.overdueAfter)
                guard !Task.isCancelled else { return }
                runtime.logger.error("the shutdown is overdue: something ignored its cancellation")
                overdue?()
            }
        }
        let served = await serving.result
        await runtime.shutdown(by: state.shutdownDeadline ?? .now + SibylRuntime.closingTime)
        enforcing.cancel()
        if case .failure(let error) = served, !(error is CancellationError) { throw error }
    }

    /// How long past the deadline a shutdown may still take before `overdue` runs.
    static let overdueAfter = Duration.seconds(2)

    /// The server and Sibyl's own shutdown work as one service group. Services shut down in the
    /// reverse of their order here, so answers under way are finished or saved first, while the
    /// HTTP server still carries their streams to the clients.
    public func serviceGroup(
        gracefulShutdownSignals: [UnixSignal] = [], onServerRunning: @escaping @Sendable (any Channel) async -> Void = { _ in }
    ) -> ServiceGroup {
        ServiceGroup(configuration: .init(
            services: [
                .init(service: application(onServerRunning: onServerRunning)), .init(service: state),
                .init(service: MemoryReader(state: state), successTerminationBehavior: .ignore),
            ],
            gracefulShutdownSignals: gracefulShutdownSignals,
            logger: runtime.logger
        ))
    }
}

/// A set of routes that adds itself to a router group.
protocol RouteCollectionAdding: Sendable {
    func add(to group: RouterGroup<SibylRequestContext>)
}
