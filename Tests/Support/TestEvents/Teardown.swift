/// Runs `body`, then awaits `teardown` whatever happened (a thrown error, a failed `#require`, a
/// cancellation), and returns what `body` gave or throws what it threw: a scoped, awaited teardown
/// where a `defer { Task { await stop() } }` would leave the stop to run some time later, or never.
@discardableResult
public func withTeardown<T>(_ body: () async throws -> T, teardown: () async -> Void) async throws -> T {
    let result: T
    do {
        result = try await body()
    } catch {
        await teardown()
        throw error
    }
    await teardown()
    return result
}
