/// The working memory of one graph search or insertion, reused from search to search so that
/// none allocates: a visited mark per node (an epoch number, so clearing is free), the
/// candidate and result heaps, and buffers for neighbour lists and selections.
///
/// One thread uses a scratch at a time; `HNSWIndex` keeps a pool of them.
package final class GraphScratch: @unchecked Sendable {
    package private(set) var visited: UnsafeMutablePointer<UInt16>
    package private(set) var visitedCapacity: Int
    package var epoch: UInt16 = 0

    package private(set) var candidates: UnsafeMutablePointer<ScoredNode>
    package private(set) var candidateCapacity: Int
    package var candidateCount = 0

    package private(set) var results: UnsafeMutablePointer<ScoredNode>
    package private(set) var resultCapacity: Int
    package var resultCount = 0

    /// Sorted results, selections, and lists being pruned.
    package private(set) var selection: UnsafeMutablePointer<ScoredNode>
    package private(set) var selectionCapacity: Int
    package private(set) var pruning: UnsafeMutablePointer<ScoredNode>
    package private(set) var pruningCapacity: Int

    /// Neighbours waiting to be scored, and their scores.
    package private(set) var pending: UnsafeMutablePointer<Int32>
    package private(set) var pendingScores: UnsafeMutablePointer<Float>
    package private(set) var pendingCapacity: Int

    /// Where searches leave the link counts they load early (so that the loads stay).
    package var touched: Int32 = 0

    /// The query, zero-padded to the graph's row stride.
    package private(set) var query: UnsafeMutablePointer<Float>
    package private(set) var queryCapacity: Int

    package init() {
        visitedCapacity = 0
        visited = .allocate(capacity: 1)
        candidateCapacity = 64
        candidates = .allocate(capacity: candidateCapacity)
        resultCapacity = 64
        results = .allocate(capacity: resultCapacity)
        selectionCapacity = 64
        selection = .allocate(capacity: selectionCapacity)
        pruningCapacity = 64
        pruning = .allocate(capacity: pruningCapacity)
        pendingCapacity = 64
        pending = .allocate(capacity: pendingCapacity)
        pendingScores = .allocate(capacity: pendingCapacity)
        queryCapacity = 16
        query = UnsafeMutableRawPointer.allocate(byteCount: 64, alignment: 64).bindMemory(to: Float.self, capacity: 16)
    }

    deinit {
        visited.deallocate()
        candidates.deallocate()
        results.deallocate()
        selection.deallocate()
        pruning.deallocate()
        pending.deallocate()
        pendingScores.deallocate()
        UnsafeMutableRawPointer(query).deallocate()
    }

    /// Grows the buffers for a graph of `nodes` nodes searched with `ef`, lists of up to
    /// `degree` links and rows of `stride` floats.
    package func reserve(nodes: Int, ef: Int, degree: Int, stride: Int) {
        if visitedCapacity < nodes {
            let capacity = max(nodes, visitedCapacity * 2, 1024)
            let grown = UnsafeMutablePointer<UInt16>.allocate(capacity: capacity)
            grown.initialize(repeating: 0, count: capacity)
            if visitedCapacity > 0 { grown.update(from: visited, count: visitedCapacity) }
            visited.deallocate()
            visited = grown
            visitedCapacity = capacity
        }
        if resultCapacity < ef + 2 {
            results.deallocate()
            resultCapacity = ef + 2
            results = .allocate(capacity: resultCapacity)
        }
        if candidateCapacity < ef + degree + 2 {
            candidates.deallocate()
            candidateCapacity = (ef + degree + 2) * 2
            candidates = .allocate(capacity: candidateCapacity)
        }
        if selectionCapacity < ef + 2 {
            selection.deallocate()
            selectionCapacity = ef + 2
            selection = .allocate(capacity: selectionCapacity)
        }
        if pruningCapacity < degree + 2 {
            pruning.deallocate()
            pruningCapacity = degree + 2
            pruning = .allocate(capacity: pruningCapacity)
        }
        if pendingCapacity < degree + 2 {
            pending.deallocate()
            pendingScores.deallocate()
            pendingCapacity = degree + 2
            pending = .allocate(capacity: pendingCapacity)
            pendingScores = .allocate(capacity: pendingCapacity)
        }
        if queryCapacity < stride {
            UnsafeMutableRawPointer(query).deallocate()
            queryCapacity = stride
            query = UnsafeMutableRawPointer.allocate(byteCount: stride * 4, alignment: 64)
                .bindMemory(to: Float.self, capacity: stride)
        }
    }

    /// Doubles the candidate heap (it can outgrow `ef` when a filter rejects most nodes).
    package func growCandidates() {
        let capacity = candidateCapacity * 2
        let grown = UnsafeMutablePointer<ScoredNode>.allocate(capacity: capacity)
        grown.moveInitialize(from: candidates, count: candidateCount)
        candidates.deallocate()
        candidates = grown
        candidateCapacity = capacity
    }

    /// Starts a search: a fresh epoch makes every node unvisited.
    package func nextEpoch() -> UInt16 {
        epoch &+= 1
        if epoch == 0 {
            visited.update(repeating: 0, count: visitedCapacity)
            epoch = 1
        }
        return epoch
    }
}
