import Logging
import PostgresNIO
import SibylCore
import Synchronization

/// One process's claim on the answers it writes into the shared database: a number (`key`) that
/// the process holds as a session advisory lock on a connection of its own for as long as it runs.
///
/// PostgreSQL releases the lock as soon as that connection ends, however the process ended (kill
/// -9 and power loss included, once the server notices the connection is gone), so "the writer
/// of this pending answer holds no lock" means exactly "its writer is dead". No clocks, no
/// heartbeats to tune. While the lease holds, it also marks failed, every `sweepInterval`, the
/// answers any dead process left pending, so that every instance shows them as failed soon after.
///
/// The lock is held through the pool's connections; behind a pooler in transaction mode
/// (PgBouncer), session locks do not hold, and Sibyl needs a direct connection.
public final class InstanceLease: Sendable {
    /// The advisory-lock namespace of instance keys (`pg_advisory_lock(namespace, key)`): "SYBI".
    static let namespace: Int32 = 0x5359_4249
    public static let interrupted = "interrupted: the Sibyl instance writing it stopped before the answer was complete"

    public let database: PostgresDatabase
    /// This process's key: positive, random, and unique among the live instances.
    public var key: Int32 { state.withLock { $0.key } }
    private let sweepInterval: Duration
    private let state: Mutex<State>

    private struct State {
        var key: Int32
        var task: Task<Void, Never>?
        var held = false
    }
    private let stop = Signal()

    public init(database: PostgresDatabase, sweepInterval: Duration = .seconds(15)) {
        self.database = database
        self.sweepInterval = sweepInterval
        state = Mutex(State(key: Int32.random(in: 1...Int32.max)))
    }

    /// Takes the lock (waiting until it holds) and keeps it until `release()`; taking it again is harmless.
    public func hold() async throws {
        let (started, ready): (Bool, AsyncStream<Result<Void, any Error>>) = state.withLock { state in
            guard state.task == nil else { return (false, AsyncStream { $0.finish() }) }
            let (readySignal, ready) = AsyncStream<Result<Void, any Error>>.makeStream()
            state.task = Task { await self.keep(ready: ready) }
            return (true, readySignal)
        }
        guard started else { return }
        for await outcome in ready {
            try outcome.get()
            return
        }
    }

    /// Holds the lock on one connection until `release()`, taking it again after a lost connection.
    private func keep(ready: AsyncStream<Result<Void, any Error>>.Continuation) async {
        var reported = false
        var stopped = false
        while !stopped && !stop.hasFired && !Task.isCancelled {
            do {
                try await database.reachable {
                    try await database.client.withConnection { connection in
                        try await claimKey(on: connection)
                        state.withLock { $0.held = true }
                        if !reported { ready.yield(.success(())); ready.finish(); reported = true }
                        database.logger.debug("instance lease \(key) held")
                        try await sweep(on: connection)
                        // Sweeps until told to stop; a sweep that fails ends the connection's turn.
                        stopped = await sweepUntilStopped(on: connection)
                        state.withLock { $0.held = false }
                        _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.namespace), \(key))", logger: database.logger)
                    }
                }
            } catch {
                state.withLock { $0.held = false }
                if !reported {
                    // Never held: the next `hold()` starts afresh.
                    state.withLock { $0.task = nil }
                    ready.yield(.failure(error))
                    ready.finish()
                    return
                }
                guard !stop.hasFired, !Task.isCancelled else { return }
                database.logger.warning("instance lease lost, taking it again: \(error)")
                // A second before the next try, unless the lease is let go meanwhile.
                await stop.wait(atMost: .seconds(1))
            }
        }
    }

    /// Takes the lock on this process's key, choosing another key while the one drawn is taken.
    private func claimKey(on connection: PostgresConnection) async throws {
        while true {
            let candidate = key
            let rows = try await connection.query("SELECT pg_try_advisory_lock(\(Self.namespace), \(candidate))", logger: database.logger)
            for try await taken in rows.decode(Bool.self) where taken { return }
            state.withLock { $0.key = Int32.random(in: 1...Int32.max) }
        }
    }

    /// Sweeps every `sweepInterval` until `release()` (true) or a sweep fails (false).
    private func sweepUntilStopped(on connection: PostgresConnection) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.stop.wait()
                return true
            }
            group.addTask {
                while true {
                    try? await Task.sleep(for: self.sweepInterval)
                    if Task.isCancelled { return true }
                    do { try await self.sweep(on: connection) } catch { return false }
                }
            }
            let outcome = await group.next() ?? true
            group.cancelAll()
            return outcome
        }
    }

    /// Marks failed every answer left pending by a writer that holds no lock any more.
    private func sweep(on connection: PostgresConnection) async throws {
        _ = try await connection.query(PostgresQuery(unsafeSQL: """
            UPDATE cv_message SET status = 'failed', error = $1
            WHERE status = 'pending' AND (writer IS NULL OR writer NOT IN (\(Self.liveKeys)))
            """, binds: Self.bindings(Self.interrupted)), logger: database.logger)
    }

    /// The keys of the instances alive now, as SQL.
    static let liveKeys = """
        SELECT objid::bigint FROM pg_locks WHERE locktype = 'advisory' AND granted AND objsubid = 2 AND classid = \(UInt32(bitPattern: namespace))
        """

    static func bindings(_ value: String) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(value)
        return bindings
    }

    /// Lets go of the lock (at shutdown); answers this process left pending are then fair game.
    ///
    /// The lock is let go on its connection when the database answers; when it does not (stopped,
    /// unreachable, frozen), the attempt is given up at `deadline`: the server drops the lock
    /// anyway when the connection ends.
    public func release(by deadline: ContinuousClock.Instant = .now + .seconds(5)) async {
        let (task, held) = state.withLock { state in
            defer { state.task = nil }
            return (state.task, state.held)
        }
        stop.fire()
        guard let task else { return }
        // Not holding it (waiting for a connection to take it again): there is nothing to let go.
        if !held { task.cancel() }
        if await !waitForWork(until: deadline, { await task.value }) {
            task.cancel()
            database.logger.warning("the database did not answer while letting the instance lease go; it is dropped with the connection")
        }
    }

    /// Whether the lock is held now.
    public var isHeld: Bool { state.withLock { $0.held } }
}

/// Something that happens once, which any number of tasks can wait for (a waiting task that is
/// cancelled stops waiting).
final class Signal: Sendable {
    private struct State {
        var fired = false
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var next = 0
    }

    private let state = Mutex(State())

    func fire() {
        let waiters = state.withLock { state in
            state.fired = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Whether `fire()` has run.
    var hasFired: Bool { state.withLock { $0.fired } }

    /// Waits until the signal fires or `limit` has passed.
    func wait(atMost limit: Duration) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.wait() }
            group.addTask { try? await Task.sleep(for: limit) }
            await group.next()
            group.cancelAll()
        }
    }

    func wait() async {
        let ticket = state.withLock { state in
            defer { state.next += 1 }
            return state.next
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state in
                    if state.fired || Task.isCancelled { return true }
                    state.waiters[ticket] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { $0.waiters.removeValue(forKey: ticket) }
            waiter?.resume()
        }
    }
}
