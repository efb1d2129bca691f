import Foundation
import MCP
import SibylApp
import SibylMCP

/// The Model Context Protocol sessions of `/mcp`: each `initialize` starts one, a server over the
/// caller's runtime with a streamable-HTTP transport of its own; later requests name it by its
/// `Mcp-Session-Id` and reach it only from the account that started it (another account is told
/// it does not exist). A session idle for `idleLimit` ends, as does a client's DELETE.
actor MCPSessions {
    private struct Session {
        var owner: String
        var server: Server
        var transport: StatefulHTTPServerTransport
        var lastUsed: ContinuousClock.Instant
    }

    /// Session ids are ours to choose: one is made before its transport, so the table has it first.
    private struct GivenID: SessionIDGenerator {
        let id: String
        func generateSessionID() -> String { id }
    }

    let options: SibylMCP.Options
    let idleLimit: Duration
    /// The most sessions one account keeps: a new one ends its least recently used.
    let perOwner: Int
    private var sessions: [String: Session] = [:]

    init(options: SibylMCP.Options = SibylMCP.Options(), idleLimit: Duration = .seconds(3600), perOwner: Int = 16) {
        self.options = options
        self.idleLimit = idleLimit
        self.perOwner = perOwner
    }

    /// Answers one HTTP request of `owner`'s; `runtime` opens their data when a session starts.
    func handle(_ request: MCP.HTTPRequest, owner: String, runtime: () async throws -> SibylRuntime) async -> MCP.HTTPResponse {
        await endIdle()
        if let id = request.header(HTTPHeaderName.sessionID) {
            guard var session = sessions[id], session.owner == owner else {
                return .error(statusCode: 404, .invalidRequest("No such session: it ended, or was never started; initialize a new one."))
            }
            session.lastUsed = .now
            sessions[id] = session
            let response = await session.transport.handleRequest(request)
            if request.method.uppercased() == "DELETE", response.statusCode == 200 { await end(id) }
            return response
        }
        guard request.method.uppercased() == "POST", let body = request.body, Self.isInitialize(body) else {
            return .error(statusCode: 400, .invalidRequest("Start with an initialize request; later ones carry its \(HTTPHeaderName.sessionID)."))
        }
        let owned = sessions.filter { $0.value.owner == owner }.sorted { $0.value.lastUsed < $1.value.lastUsed }
        for (oldest, _) in owned.prefix(max(0, owned.count - perOwner + 1)) { await end(oldest) }
        let id = UUID().uuidString
        let transport = StatefulHTTPServerTransport(
            sessionIDGenerator: GivenID(id: id),
            // Sibyl checks where requests come from itself (the route's origin check, and accounts).
            validationPipeline: StandardValidationPipeline(validators: [
                OriginValidator.disabled, AcceptHeaderValidator(mode: .sseRequired), ContentTypeValidator(), ProtocolVersionValidator(), SessionValidator(),
            ])
        )
        do {
            let server = await SibylMCP.server(runtime: try await runtime(), options: options)
            try await server.start(transport: transport)
            sessions[id] = Session(owner: owner, server: server, transport: transport, lastUsed: .now)
        } catch {
            await transport.disconnect()
            return .error(statusCode: 500, .internalError("Cannot start the session: \(error.localizedDescription)"))
        }
        let response = await transport.handleRequest(request)
        if case .error = response { await end(id) }
        return response
    }

    /// Whether a JSON-RPC body is an `initialize` request.
    static func isInitialize(_ body: Data) -> Bool {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return false }
        return object["method"] as? String == "initialize" && object["id"] != nil
    }

    /// How many sessions are open (for tests and the log).
    var count: Int { sessions.count }

    /// Ends an owner's sessions (the account was removed).
    func endAll(of owner: String) async {
        for (id, session) in sessions where session.owner == owner { await end(id) }
    }

    /// Ends every session (the server is stopping).
    func endAll() async {
        for id in sessions.keys { await end(id) }
    }

    private func endIdle() async {
        let now = ContinuousClock.now
        for (id, session) in sessions where now - session.lastUsed > idleLimit { await end(id) }
    }

    private func end(_ id: String) async {
        guard let session = sessions.removeValue(forKey: id) else { return }
        await session.server.stop()
        await session.transport.disconnect()
    }
}
