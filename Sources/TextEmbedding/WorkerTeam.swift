import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Helper threads that split the steps of one small forward pass with the calling thread.
///
/// A short query is about forty steps of well under a millisecond each; waking a pool thread for
/// every step (what `DispatchQueue.concurrentPerform` does) costs as much as the step saves. Here
/// the helpers are woken once per pass and then spin, picking up each step as it is published.
final class WorkerTeam: Sendable {
    /// Threads that take part, the caller included.
    let size: Int
    private let state: State

    init(size: Int) {
        self.size = max(1, size)
        state = State(helpers: self.size - 1)
    }

    deinit {
        state.shutDown()
    }

    /// Runs `body` with a splitter whose steps this team shares, or with `fallback` when another
    /// pass holds the team.
    func withSplitter<Result>(fallback: WorkSplitter, _ body: (WorkSplitter) throws -> Result) rethrows -> Result {
        guard size > 1, state.begin() else { return try body(fallback) }
        defer { state.end() }
        return try body(WorkSplitter(workers: size, team: state))
    }

    /// The shared state, owned jointly by the team and its threads.
    final class State: @unchecked Sendable {
        // @unchecked: `job` is written by the leader only while no helper reads it; the release
        // and acquire orderings on `generation` and `remaining` publish it.
        let helpers: Int
        private let generation = Atomic<Int>(0)
        private let remaining = Atomic<Int>(0)
        private let open = Atomic<Bool>(false)
        private let inUse = Atomic<Bool>(false)
        private let stopping = Atomic<Bool>(false)
        /// The generation before the current pass's first step, for helpers that just woke.
        private let passStart = Atomic<Int>(0)
        private let started = Mutex(false)
        private let wake: [DispatchSemaphore]
        nonisolated(unsafe) private var job: ((Int) -> Void)?

        init(helpers: Int) {
            self.helpers = helpers
            wake = (0..<helpers).map { _ in DispatchSemaphore(value: 0) }
        }

        /// Claims the team and wakes its helpers; false when another pass has it.
        func begin() -> Bool {
            guard inUse.compareExchange(expected: false, desired: true, ordering: .acquiring).exchanged else {
                return false
            }
            startThreadsOnce()
            passStart.store(generation.load(ordering: .relaxed), ordering: .relaxed)
            open.store(true, ordering: .releasing)
            for semaphore in wake { semaphore.signal() }
            return true
        }

        func end() {
            open.store(false, ordering: .releasing)
            inUse.store(false, ordering: .releasing)
        }

        /// Runs `work(participant)` on every participant (0 is the caller) and waits for all.
        func run(_ work: (Int) -> Void) {
            withoutActuallyEscaping(work) { work in
                job = work
                remaining.store(helpers, ordering: .relaxed)
                generation.add(1, ordering: .releasing)
                work(0)
                var spins = 0
                while remaining.load(ordering: .acquiring) > 0 {
                    Self.pause(&spins)
                }
                job = nil
            }
        }

        func shutDown() {
            stopping.store(true, ordering: .releasing)
            for semaphore in wake { semaphore.signal() }
        }

        private func startThreadsOnce() {
            let start = started.withLock { started in
                defer { started = true }
                return !started
            }
            guard start else { return }
            for participant in 1..<(helpers + 1) {
                let thread = Thread { [self] in helperLoop(participant) }
                thread.name = "MiniLM helper \(participant)"
                thread.start()
            }
        }

        private func helperLoop(_ participant: Int) {
            while true {
                wake[participant - 1].wait()
                if stopping.load(ordering: .acquiring) { return }
                var seen = passStart.load(ordering: .acquiring)
                var spins = 0
                while open.load(ordering: .acquiring) {
                    let current = generation.load(ordering: .acquiring)
                    if current != seen {
                        seen = current
                        job?(participant)
                        remaining.subtract(1, ordering: .releasing)
                        spins = 0
                    } else {
                        Self.pause(&spins)
                    }
                }
            }
        }

        /// Spins briefly, then yields the processor so that a busy machine is not starved.
        @inline(__always)
        private static func pause(_ spins: inout Int) {
            spins += 1
            if spins > 2_000 {
                sched_yield()
            }
        }
    }
}
