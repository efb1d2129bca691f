import Assistant
import Foundation
import ServiceLifecycle
import Synchronization

/// What the routes share: the runtime, the limits, who has how many answers under way, and the
/// glasses connected to this server.
final class ServerState: Sendable {
    let runtime: SibylRuntime
    let limits: ServerLimits
    let glasses: GlassesHub
    /// The conversation list's encoded pages.
    let conversationLists = ListingCache()
    private let turnsByClient = Mutex<[String: Int]>([:])
    private let warmUp = Mutex<WarmUp>(.notStarted)

    /// How far the local chat engine is from answering.
    enum WarmUp: Sendable, Equatable {
        case notStarted, starting, ready, notNeeded
        case failed(String)
    }

    init(runtime: SibylRuntime, limits: ServerLimits) {
        self.runtime = runtime
        self.limits = limits
        glasses = GlassesHub(runtime: runtime)
    }

    /// Counts an answer against a client's limit; the slot is freed when `release` runs.
    func reserveTurn(for client: String) throws -> @Sendable () -> Void {
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
        guard runtime.providers.chatsLocally else {
            warmUp.withLock { $0 = .notNeeded }
            return
        }
        warmUp.withLock { $0 = .starting }
        do {
            _ = try await runtime.providers.chatEndpoint()
            warmUp.withLock { $0 = .ready }
        } catch {
            warmUp.withLock { $0 = .failed(ConversationEngine.describe(error)) }
        }
    }
}

extension ServerState: Service {
    /// Warms the chat engine up, then waits for shutdown: answers under way get the grace period
    /// (`serve.shutdown_grace`) and are then saved as cancelled, and glasses sessions end, before
    /// the HTTP server closes its connections.
    func run() async throws {
        let warming = Task { await warmUpChat() }
        try? await gracefulShutdown()
        warming.cancel()
        let grace = Duration.seconds(runtime.settings.integer("serve.shutdown_grace") ?? 10)
        await runtime.finishAnswers(grace: grace)
        await glasses.stopAll()
    }
}

/// A client's answer slot (`ServerState.reserveTurn`), freed once: by `free()`, or when the last
/// holder lets go of it (a response whose body was never written).
final class TurnSlot: Sendable {
    private let release: @Sendable () -> Void

    init(_ release: @escaping @Sendable () -> Void) {
        self.release = release
    }

    func free() {
        release()
    }

    deinit {
        release()
    }
}
