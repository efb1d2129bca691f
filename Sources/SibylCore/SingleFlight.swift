import Synchronization

/// A value made once, by the first caller, whatever arrives first: callers that come while it is
/// being made wait for the same attempt, and once made it is kept. A failed attempt is not kept,
/// so the next caller tries again. (Opening a database file: two requests that each opened it
/// would migrate it twice at once, and SQLite refuses one of them.)
public final class SingleFlight<Value: Sendable>: Sendable {
    private enum State {
        case empty
        case making(Task<Value, any Error>)
        case made(Value)
    }

    private let state = Mutex(State.empty)

    public init() {}

    /// The value, made by `make` if no one has made it yet.
    public func value(_ make: @escaping @Sendable () async throws -> Value) async throws -> Value {
        let attempt: Task<Value, any Error> = state.withLock { state in
            switch state {
            case .made(let value): return Task { value }
            case .making(let task): return task
            case .empty:
                let task = Task { try await make() }
                state = .making(task)
                return task
            }
        }
        do {
            let value = try await attempt.value
            state.withLock { state in
                if case .making = state { state = .made(value) }
            }
            return value
        } catch {
            state.withLock { state in
                if case .making(let task) = state, task == attempt { state = .empty }
            }
            throw error
        }
    }

    /// The value, when it has been made.
    public var current: Value? {
        state.withLock { state in
            if case .made(let value) = state { return value }
            return nil
        }
    }
}
