import Synchronization

/// A value that tests wait on: whoever changes it (a stream's reader, a process's termination
/// handler, a pipe's drain) wakes whoever waits for a condition on it, so a test waits for the event
/// itself instead of sleeping and looking again.
///
/// ```swift
/// let lines = Observed<[String]>([])
/// // elsewhere: lines.update { $0.append(line) }
/// let all = try await lines.wait(for: "the greeting") { $0.contains("hello") }
/// ```
public final class Observed<Value: Sendable>: Sendable {
    private struct State {
        var value: Value
        /// Counts the changes: a waiter sleeps only if nothing changed since it last looked.
        var version = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waits whose ceiling has passed or whose task was cancelled: they look once more and end.
        var expired: Set<Int> = []
        var nextWaiter = 0
    }

    private let state: Mutex<State>

    public init(_ value: Value) {
        state = Mutex(State(value: value))
    }

    /// The value now.
    public var value: Value { state.withLock { $0.value } }

    /// Changes the value and wakes every waiter, which looks at it again.
    @discardableResult
    public func update<Result>(_ change: (inout Value) throws -> Result) rethrows -> Result {
        let (result, woken) = try state.withLock { state -> (Result, [CheckedContinuation<Void, Never>]) in
            let result = try change(&state.value)
            state.version += 1
            defer { state.waiters = [:] }
            return (result, Array(state.waiters.values))
        }
        for waiter in woken { waiter.resume() }
        return result
    }

    /// Waits until `condition` holds for the value, looking again at every change, and returns the
    /// value it held for. `ceiling` guards against a hang (make it generous: it is no bound on the
    /// code under test); past it this throws `WaitedInVain` with `what` (evaluated then, so it can
    /// show what there was instead), and when the task is cancelled, `CancellationError`.
    @discardableResult
    public func wait(
        for what: @autoclosure () -> String = "a condition", within ceiling: Duration = .seconds(120), until condition: (Value) throws -> Bool
    ) async throws -> Value {
        try await wait(for: what(), within: ceiling) { value in try condition(value) ? value : nil }
    }

    /// Waits until `extract` finds something in the value, looking again at every change, and returns it.
    public func wait<Found>(
        for what: @autoclosure () -> String = "a value", within ceiling: Duration = .seconds(120), _ extract: (Value) throws -> Found?
    ) async throws -> Found {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        let timer = Ceiling.start(ceiling) { [self] in expire(id) }
        defer {
            timer.cancel()
            state.withLock { _ = $0.expired.remove(id) }
        }
        while true {
            let (value, version, expired) = state.withLock { ($0.value, $0.version, $0.expired.contains(id)) }
            if let found = try extract(value) { return found }
            if expired {
                try Task.checkCancellation()
                throw WaitedInVain(what: what(), waited: ceiling)
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                    let now = state.withLock { state -> Bool in
                        guard state.version == version, !state.expired.contains(id) else { return true }
                        state.waiters[id] = continuation
                        return false
                    }
                    if now { continuation.resume() }
                }
            } onCancel: {
                expire(id)
            }
        }
    }

    /// Ends one wait: it looks a last time and gives up.
    private func expire(_ id: Int) {
        let waiter = state.withLock { state in
            state.expired.insert(id)
            return state.waiters.removeValue(forKey: id)
        }
        waiter?.resume()
    }
}

/// A wait that did not end before its ceiling (or was cancelled), and what it waited for.
public struct WaitedInVain: Error, CustomStringConvertible {
    public var what: String
    public var waited: Duration

    public init(what: String, waited: Duration) {
        self.what = what
        self.waited = waited
    }

    public var description: String { "waited up to \(waited) for \(what), in vain" }
}
