/// The one timer of the waits: a ceiling against hangs, never a bound the code under test must
/// meet. Nothing waits on its length; it only ends a wait that would otherwise never end.
enum Ceiling {
    /// Calls `expired` once `ceiling` has passed, unless the returned task is cancelled first.
    static func start(_ ceiling: Duration, _ expired: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        Task {
            // The ceiling's own timer (a guard against hangs, not a wait for an event).
            guard (try? await Task.sleep(for: ceiling)) != nil else { return }
            expired()
        }
    }
}

/// Waits for `work` to finish (an event: a process's exit, a task's end) and returns what it gave;
/// past `ceiling` (a guard against hangs, make it generous), or when the waiting task is cancelled,
/// `work` is cancelled and this throws (`WaitedInVain`, or `CancellationError`). Unlike a task group, this returns at the
/// ceiling even when `work` does not heed cancellation.
public func waitFor<T: Sendable>(
    _ what: @autoclosure () -> String, within ceiling: Duration = .seconds(120), _ work: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Observed<Result<T, any Error>?>(nil)
    let running = Task {
        let result: Result<T, any Error>
        do { result = .success(try await work()) } catch { result = .failure(error) }
        outcome.update { $0 = result }
    }
    let result: Result<T, any Error>
    do {
        result = try await outcome.wait(for: what(), within: ceiling) { $0 }
    } catch {
        // Past the ceiling, or cancelled: the work is given up (its own failures came through `get`).
        running.cancel()
        throw error
    }
    return try result.get()
}
