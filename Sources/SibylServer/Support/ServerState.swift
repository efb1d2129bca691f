import Accounts
import Assistant
import Foundation
import ServiceLifecycle
import SibylApp
import SibylConfig
import SibylCore
import SibylMCP
import Synchronization

/// What the routes share: the runtime, the limits, who has how many answers under way, and the
/// glasses connected to this server.
final class ServerState: Sendable {
    let runtime: SibylRuntime
    let limits: ServerLimits
    /// The accounts, when the server asks who is calling; nil on an open (loopback) server.
    let accounts: Accounts?
    /// Whether the session cookie is marked Secure (the server is reached over HTTPS).
    let secureCookies: Bool
    /// The address the server listens on (`serve.host`).
    let listenHost: String
    let glasses: GlassesHub
    /// The MCP sessions of `/mcp`.
    let mcp: MCPSessions
    /// The local user's data: everything on an open server.
    let base: Workspace
    /// While a server with accounts has none: the one-time secret that lets the first
    /// administrator be made over the API (`POST /api/v1/auth/setup`).
    let setupToken = Mutex<String?>(nil)
    /// Each account's data, opened on first use.
    private let workspaces = Mutex<[String: Workspace]>([:])
    private let turnsByClient = Mutex<[String: Int]>([:])
    private let warmUp = Mutex<WarmUp>(.notStarted)
    /// When shutdown began: the moment everything must be done by (`serve.shutdown_grace` later).
    let shutdownDeadlines: AsyncStream<ContinuousClock.Instant>
    private let shutdownBegan: AsyncStream<ContinuousClock.Instant>.Continuation
    private let deadline = Mutex<ContinuousClock.Instant?>(nil)

    /// How far the local chat engine is from answering.
    enum WarmUp: Sendable, Equatable {
        case notStarted, starting, ready, notNeeded
        case failed(String)
    }

    init(
        runtime: SibylRuntime, limits: ServerLimits, accounts: Accounts? = nil, secureCookies: Bool = false, listenHost: String = "127.0.0.1",
        mcpFolders: [URL] = []
    ) {
        self.runtime = runtime
        self.listenHost = listenHost
        self.limits = limits
        self.accounts = accounts
        self.secureCookies = secureCookies
        base = Workspace(runtime: runtime)
        glasses = GlassesHub(runtime: runtime)
        mcp = MCPSessions(options: SibylMCP.Options(allowedFolders: mcpFolders))
        (shutdownDeadlines, shutdownBegan) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// The moment a shutdown under way must be done by; nil while the server serves.
    var shutdownDeadline: ContinuousClock.Instant? { deadline.withLock { $0 } }

    /// The data a request may reach: its account's on a server with accounts (never anyone
    /// else's, and never the local user's), the local user's on an open server.
    func workspace(for context: SibylRequestContext) async throws -> Workspace {
        guard let accounts else { return base }
        guard let account = context.credential?.account else { throw AuthMiddleware.unauthorized("Sign in first.") }
        return try await workspace(forAccount: account, in: accounts)
    }

    /// An account's workspace, opened on first use (for its own requests, or an administrator's look at its log).
    func workspace(forAccount account: Account, in accounts: Accounts) async throws -> Workspace {
        if let workspace = workspaces.withLock({ $0[account.id] }) { return workspace }
        // An account removed meanwhile must not get its directory back.
        guard try await accounts.account(id: account.id) != nil else { throw AuthMiddleware.unauthorized("This account no longer exists.") }
        let (workspace, made) = try workspaces.withLock { open in
            if let workspace = open[account.id] { return (workspace, false) }
            let home = runtime.paths.accountHome(id: account.id)
            try FileManager.default.createDirectory(at: runtime.paths.accountHomes, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let workspace = Workspace(runtime: try SibylRuntime(sharing: runtime, dataHome: home))
            open[account.id] = workspace
            return (workspace, true)
        }
        // Removed while its workspace was being made (by this instance or another): undo it.
        if made, try await accounts.account(id: account.id) == nil {
            await closeWorkspace(accountID: account.id)
            throw AuthMiddleware.unauthorized("This account no longer exists.")
        }
        return workspace
    }

    /// Forgets an account's workspace (the account was removed): its answers under way are
    /// stopped and its data directory deleted.
    func closeWorkspace(accountID: String) async {
        let workspace = workspaces.withLock { $0.removeValue(forKey: accountID) }
        await glasses.stopAll(of: accountID)
        await mcp.endAll(of: accountID)
        await workspace?.runtime.finishAnswers(grace: .zero)
        try? FileManager.default.removeItem(at: runtime.paths.accountHome(id: accountID))
        do {
            try await runtime.sharedDatabase?.removeData(ofAccount: accountID)
        } catch {
            runtime.logger.error("could not remove the documents of removed account \(accountID) from the database: \(error.localizedDescription)")
        }
    }

    /// The runtime of the request's data (see `workspace(for:)`).
    func runtime(for context: SibylRequestContext) async throws -> SibylRuntime {
        try await workspace(for: context).runtime
    }

    /// Every open workspace, the local user's first.
    var allWorkspaces: [Workspace] {
        [base] + workspaces.withLock { Array($0.values) }
    }

    /// Starts an answer in one of the client's slots (`serve.max_turns_per_client`; 429 when all
    /// are taken): the slot is given back at once when `start` fails, else the caller frees it when
    /// the answer ends (`TurnSlot`).
    func withTurnSlot<Started>(for client: String, _ start: () async throws -> Started) async throws -> (Started, TurnSlot) {
        let slot = TurnSlot(try reserveTurn(for: client))
        do {
            return (try await start(), slot)
        } catch {
            slot.free()
            throw error
        }
    }

    /// Counts an answer against a client's limit; the slot is freed when `release` runs.
    private func reserveTurn(for client: String) throws -> @Sendable () -> Void {
        let limit = limits.turnsPerClient
        let granted = turnsByClient.withLock { counts in
            guard counts[client, default: 0] < limit else { return false }
            counts[client, default: 0] += 1
            return true
        }
        guard granted else {
            throw APIError(
                .tooManyRequests, code: "too_many_turns",
                "This client already has \(limit) answers under way; wait for one to finish or stop one.",
                headers: [.retryAfter: "2"]
            )
        }
        let released = Mutex(false)
        return { [weak self] in
            guard released.withLock({ done in defer { done = true }; return !done }) else { return }
            self?.turnsByClient.withLock { counts in
                counts[client, default: 1] -= 1
                if counts[client] == 0 { counts[client] = nil }
            }
        }
    }

    /// The local chat engine's state, for `/readyz`.
    var chatWarmUp: WarmUp { warmUp.withLock { $0 } }

    /// Starts the local chat engine now, so the first question does not wait for the model to load.
    func warmUpChat() async {
        guard runtime.admin.chatsLocally else {
            warmUp.withLock { $0 = .notNeeded }
            return
        }
        warmUp.withLock { $0 = .starting }
        do {
            let started = try await runtime.admin.warmUpLocalChat()
            warmUp.withLock { $0 = started ? .ready : .notNeeded }
        } catch {
            warmUp.withLock { $0 = .failed(ConversationEngine.describe(error)) }
        }
    }
}

extension ServerState: Service {
    /// Warms the chat engine and speech-to-text up, then waits for shutdown: answers under way get the grace period
    /// (`serve.shutdown_grace`) and are then saved as cancelled, and glasses sessions end, before
    /// the HTTP server closes its connections.
    ///
    /// The whole shutdown fits in `serve.shutdown_grace`: answers get it less a closing reserve (up
    /// to 2 s) in which cancelled answers are saved and the rest is closed; what a database that
    /// stopped answering holds up is given up at the deadline (`SibylServer.run` enforces it).
    func run() async throws {
        let warming = Task { [runtime] in
            await warmUpChat()
            // Then the recognisers, which stay loaded too (after the chat model: both load on the same cores).
            await runtime.voice.warmUp()
        }
        try? await gracefulShutdown()
        warming.cancel()
        let grace = Duration.seconds(runtime.settings[.serveShutdownGrace])
        let deadline = ContinuousClock.now + grace
        self.deadline.withLock { $0 = deadline }
        shutdownBegan.yield(deadline)
        shutdownBegan.finish()
        // Open pages' event streams end now: they would otherwise hold the shutdown to its deadline.
        for workspace in allWorkspaces { workspace.runtime.events.finishAll() }
        let answersEnd = deadline - min(.seconds(2), grace / 2)
        await withTaskGroup(of: Void.self) { group in
            for workspace in allWorkspaces {
                group.addTask { await workspace.runtime.finishAnswers(grace: answersEnd - .now, by: deadline) }
            }
        }
        await mcp.endAll()
        await waitForWork(until: deadline) { await self.glasses.stopAll() }
    }
}

/// A client's answer slot (`ServerState.withTurnSlot`), freed once: by `free()`, or when the last
/// holder lets go of it (a response whose body was never written).
final class TurnSlot: Sendable {
    private let release: @Sendable () -> Void

    init(_ release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    func free() {
        release()
    }

    /// Frees the slot once the answer has ended (at once for a reply that needed no model).
    func free(whenEnded result: AskResult) {
        guard case .answering(let turn) = result.outcome else { return free() }
        Task {
            await turn.waitUntilEnded()
            self.free()
        }
    }

    deinit {
        release()
    }
}

/// One person's data on the server: their runtime (conversations, documents, personas, log) and
/// the encoded pages of their conversation list.
final class Workspace: Sendable {
    let runtime: SibylRuntime
    let conversationLists = ListingCache()

    init(runtime: SibylRuntime) {
        self.runtime = runtime
    }
}
