public import Foundation
import SibylCore
import Synchronization

/// The answers under way in a process, so that any client can find, watch or cancel them, and a
/// shutdown can let them finish (or save them as cancelled) before the process ends.
public final class TurnRegistry: Sendable {
    private let live = Mutex<[UUID: LiveTurn]>([:])

    package init() {}

    /// Follows a new answer until it ends; `ended` runs once with its last event.
    package func register(_ turn: AssistantTurn, ended: @escaping @Sendable (LiveTurn, AssistantEvent?) async -> Void = { _, _ in }) -> LiveTurn {
        let registered = LiveTurn(turn) { [weak self] turn, last in
            _ = self?.live.withLock { $0.removeValue(forKey: turn.id) }
            await ended(turn, last)
        }
        live.withLock { live in
            if !registered.hasEnded { live[registered.id] = registered }
        }
        return registered
    }

    /// The answer under way with this id (the answer message's id).
    public func turn(id: UUID) -> LiveTurn? {
        live.withLock { $0[id] }
    }

    /// The answer under way in a conversation, if any.
    public func turn(inConversation conversationID: UUID) -> LiveTurn? {
        live.withLock { $0.values.first { $0.conversationID == conversationID } }
    }

    /// Every answer under way.
    public var all: [LiveTurn] { live.withLock { Array($0.values) } }

    /// Gives the answers under way `grace` to finish, then cancels the rest and waits until each
    /// is saved, but not past `deadline` (a store that stopped answering cannot hold a shutdown).
    package func finishAll(grace: Duration, by deadline: ContinuousClock.Instant) async {
        let under = all
        await waitForWork(until: min(.now + grace, deadline)) {
            for turn in under { await turn.waitUntilEnded() }
        }
        let remaining = all
        for turn in remaining { turn.cancel() }
        await waitForWork(until: deadline) {
            for turn in remaining { await turn.waitUntilEnded() }
        }
    }
}
