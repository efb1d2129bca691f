import Dispatch

/// Runs a loop over `0..<count` either inline or split into contiguous ranges across threads.
struct WorkSplitter: Sendable {
    /// How many threads share each loop; 1 runs everything on the calling thread.
    let workers: Int
    /// Threads already spinning for this pass; otherwise loops go to Dispatch's pool.
    var team: WorkerTeam.State?

    static let inline = WorkSplitter(workers: 1)

    init(workers: Int, team: WorkerTeam.State? = nil) {
        self.workers = workers
        self.team = team
    }

    /// Calls `body(range, worker)` for ranges covering `0..<count`, whose bounds (except the last)
    /// are multiples of `granularity`, and returns when all have run.
    @inline(__always)
    func run(_ count: Int, granularity: Int = 1, _ body: (Range<Int>, Int) -> Void) {
        let units = (count + granularity - 1) / granularity
        let parts = min(workers, units)
        guard parts > 1 else {
            if count > 0 { body(0..<count, 0) }
            return
        }
        if let team {
            team.run { part in
                guard part < parts else { return }
                let lower = units * part / parts * granularity
                let upper = min(count, units * (part + 1) / parts * granularity)
                body(lower..<upper, part)
            }
            return
        }
        withoutActuallyEscaping(body) { body in
            // Each part gets a disjoint range; what the body touches is the caller's business.
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let lower = units * part / parts * granularity
                let upper = min(count, units * (part + 1) / parts * granularity)
                body(lower..<upper, part)
            }
        }
    }
}
