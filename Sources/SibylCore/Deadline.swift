import Synchronization

/// Waits for `work` until it ends or `deadline` passes, whichever comes first, and says whether it
/// ended in time. At the deadline the work is cancelled and left to end in the background: a
/// shutdown must not hang on a peer that stopped answering (a frozen database, a stuck child).
@discardableResult
public func waitForWork(until deadline: ContinuousClock.Instant, _ work: @escaping @Sendable () async -> Void) async -> Bool {
    let running = Task { await work() }
    let ended = await withCheckedContinuation { (done: CheckedContinuation<Bool, Never>) in
        let resumed = Mutex(false)
        let finish: @Sendable (Bool) -> Void = { inTime in
            guard !resumed.withLock({ state in defer { state = true }; return state }) else { return }
            done.resume(returning: inTime)
        }
        Task {
            await running.value
            finish(true)
        }
        Task {
            try? await Task.sleep(until: deadline, clock: .continuous)
            finish(false)
        }
    }
    if !ended { running.cancel() }
    return ended
}
