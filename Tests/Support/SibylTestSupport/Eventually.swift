import Foundation

/// A condition that did not come true before its ceiling.
public struct NeverHappened: Error, CustomStringConvertible {
    /// What was waited for.
    public var what: String
    public var waited: Duration

    public var description: String { "waited \(waited) for \(what), in vain" }
}

/// Waits until `condition` holds, checking again and again (often at first, then less often);
/// `within` is a ceiling against hangs, not a deadline the code under test must meet, so make it
/// generous. Prefer waiting for an event when the code offers one.
public func eventually(
    within ceiling: Duration = .seconds(120), _ what: @autoclosure () -> String = "a condition", _ condition: () async throws -> Bool
) async throws {
    let clock = ContinuousClock()
    let started = clock.now
    var pause = Duration.milliseconds(5)
    while try await !condition() {
        guard clock.now - started < ceiling else { throw NeverHappened(what: what(), waited: ceiling) }
        try await Task.sleep(for: pause)
        pause = min(pause * 2, .milliseconds(200))
    }
}

/// Waits until `value` gives something, and returns it; see `eventually(within:_:_:)`.
public func eventually<Value>(
    within ceiling: Duration = .seconds(120), _ what: @autoclosure () -> String = "a value", _ value: () async throws -> Value?
) async throws -> Value {
    var found: Value?
    try await eventually(within: ceiling, what()) {
        found = try await value()
        return found != nil
    }
    return found!
}
