import Assistant
import Foundation
import Hummingbird
import SibylApp

/// `/healthz` (the process answers) and `/readyz` (it can answer questions now).
struct HealthRoutes: Sendable {
    let state: ServerState

    struct Health: Codable, Sendable {
        var status: String
    }

    struct Readiness: Codable, Sendable {
        var ready: Bool
        /// Each dependency: `ok`, `starting`, `remote`, or what is wrong.
        var checks: [String: String]
    }

    func add(to router: Router<SibylRequestContext>) {
        router.get("healthz") { _, _ in JSONBody(Health(status: "ok")) }
        router.get("readyz") { _, _ in
            let readiness = await readiness()
            return JSONBody(readiness, status: readiness.ready ? .ok : .serviceUnavailable)
        }
    }

    private func readiness() async -> Readiness {
        var checks: [String: String] = [:]
        var ready = true
        do {
            _ = try await state.runtime.conversations.list(limit: 1)
            checks["database"] = "ok"
        } catch {
            checks["database"] = ConversationEngine.describe(error)
            ready = false
        }
        switch state.chatWarmUp {
        case .ready: checks["chat"] = "ok"
        case .notNeeded: checks["chat"] = "remote"
        case .notStarted, .starting:
            checks["chat"] = "starting"
            ready = false
        case .failed(let reason):
            checks["chat"] = reason
            ready = false
        }
        return Readiness(ready: ready, checks: checks)
    }
}
