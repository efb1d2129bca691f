public import Foundation
import Synchronization

/// An answer under way, watched by any number of clients.
///
/// The answer does not depend on anyone watching: a client that goes away (a browser tab closed,
/// a phone out of signal) leaves it running to the end, saved as it grows; a client that comes
/// back gets every event from the start, then follows. Only `cancel()` stops it.
public final class LiveTurn: Sendable, Identifiable {
    private struct State {
        var events: [AssistantEvent] = []
        var watchers: [UUID: AsyncStream<AssistantEvent>.Continuation] = [:]
        var ended = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The answer's message id.
    public var id: UUID { turn.answerID }
    /// The conversation it is written in.
    public var conversationID: UUID { turn.conversationID }
    /// The question's message id.
    public var questionID: UUID { turn.questionID }
    private let turn: AssistantTurn
    private let state = Mutex(State())

    /// Starts following `turn`'s events; `ended` is called once with the last event.
    init(_ turn: AssistantTurn, ended: @escaping @Sendable (LiveTurn, AssistantEvent?) async -> Void) {
        self.turn = turn
        Task { [self] in
            var last: AssistantEvent?
            for await event in turn.events {
                if event.endsAnswer { last = event }
                self.publish(event)
            }
            // Marked ended before `ended` runs, so the registry never keeps a turn that has ended.
            self.end()
            await ended(self, last)
        }
    }

    /// Every event so far, then the rest as they happen; the stream ends with the answer.
    public func events() -> AsyncStream<AssistantEvent> {
        let (stream, continuation) = AsyncStream<AssistantEvent>.makeStream()
        let key = UUID()
        state.withLock { state in
            for event in state.events { continuation.yield(event) }
            if state.ended {
                continuation.finish()
            } else {
                state.watchers[key] = continuation
            }
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.watchers.removeValue(forKey: key) }
        }
        return stream
    }

    /// Stops the answer; what was written so far is kept and marked cancelled.
    public func cancel() {
        turn.cancel()
    }

    /// Whether the answer is complete, failed or cancelled.
    public var hasEnded: Bool { state.withLock { $0.ended } }

    /// The event that ended the answer (`.finished`, `.failed` or `.cancelled`), once it has ended.
    public var outcome: AssistantEvent? {
        state.withLock { state in state.events.last { $0.endsAnswer } }
    }

    /// Waits until the answer has ended.
    public func waitUntilEnded() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                if state.ended { return true }
                state.waiters.append(waiter)
                return false
            }
            if resumeNow { waiter.resume() }
        }
    }

    private func publish(_ event: AssistantEvent) {
        state.withLock { state in
            state.events.append(event)
            for watcher in state.watchers.values { watcher.yield(event) }
        }
    }

    private func end() {
        let (watchers, waiters) = state.withLock { state in
            state.ended = true
            defer {
                state.watchers = [:]
                state.waiters = []
            }
            return (Array(state.watchers.values), state.waiters)
        }
        for watcher in watchers { watcher.finish() }
        for waiter in waiters { waiter.resume() }
    }
}

extension AssistantEvent {
    /// Whether this event is the end of an answer.
    public var endsAnswer: Bool {
        switch self {
        case .finished, .failed, .cancelled: true
        default: false
        }
    }
}
