import Foundation
import ServiceLifecycle
import SibylApp
import SibylConfig

/// Reads the conversations that went quiet for facts about their users (`memory.propose`), in
/// every open account's workspace: a conversation is read once it has had no new message for
/// `memory.quiet_minutes`, and again only after it has new ones. Looks every half quiet (between
/// 5 s and a minute); stops at shutdown.
struct MemoryReader: Service {
    let state: ServerState

    func run() async throws {
        await cancelWhenGracefulShutdown { await readWhileServing() }
    }

    private func readWhileServing() async {
        var lastFailure: [ObjectIdentifier: String] = [:]
        while !Task.isCancelled {
            let quiet = Duration.seconds(60 * max(0, state.runtime.settings[.memoryQuietMinutes]))
            do {
                try await Task.sleep(for: Self.interval(quiet: quiet))
            } catch {
                return
            }
            for workspace in state.allWorkspaces {
                let runtime = workspace.runtime
                guard !Task.isCancelled else { return }
                guard runtime.settings[.memoryPropose] else { continue }
                let quiet = Duration.seconds(60 * max(0, runtime.settings[.memoryQuietMinutes]))
                let key = ObjectIdentifier(workspace)
                do {
                    _ = try await runtime.memory.readQuietConversations(quiet: quiet)
                    lastFailure[key] = nil
                } catch where !Task.isCancelled {
                    // Said once, not every look: a missing model stays missing until someone installs it.
                    let message = error.localizedDescription
                    if lastFailure[key] != message {
                        await runtime.log(.warning, .memoryPropose, "could not read quiet conversations for facts: \(message)")
                        lastFailure[key] = message
                    }
                } catch {
                    return
                }
            }
        }
    }

    /// How often to look: every half quiet, at least every minute, at most every 5 s.
    static func interval(quiet: Duration) -> Duration {
        min(.seconds(60), max(.seconds(5), quiet / 2))
    }
}
