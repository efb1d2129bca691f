import Synchronization
import VectorIndexLayout

/// Search scratch memory kept between searches, one per thread searching at the same time, so
/// that a search allocates nothing.
final class ScratchPool: Sendable {
    private let free = Mutex<[GraphScratch]>([])

    func withScratch<Result>(_ body: (GraphScratch) throws -> Result) rethrows -> Result {
        let scratch = free.withLock { $0.popLast() } ?? GraphScratch()
        defer { free.withLock { $0.append(scratch) } }
        return try body(scratch)
    }

    /// Drops the pooled memory (after the graph shrinks).
    func removeAll() {
        free.withLock { $0.removeAll() }
    }
}
