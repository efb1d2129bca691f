import Synchronization
import VectorIndexLayout

extension HNSWIndex {
    /// `search(_:k:ef:filter:)` with the default ef.
    public func search(_ query: [Float], k: Int, filter: IDFilter?) -> [SearchHit] {
        search(query, k: k, ef: nil, filter: filter)
    }

    /// The `k` best live vectors for `query` among those `filter` keeps, best first. `ef`
    /// (default `parameters.efSearch`, at least `k`) trades speed for recall. A filter that
    /// keeps few vectors (judged on a sample) is answered by scanning them exactly.
    public func search(_ query: [Float], k: Int, ef: Int?, filter: IDFilter? = nil) -> [SearchHit] {
        VectorValidation.requireQuery(query, dimension: dimension)
        return lock.withReadLock {
            scratchPool.withScratch { scratch in searchLocked(query, k: k, ef: ef, filter: filter, allowed: nil, scratch: scratch) }
        }
    }

    /// `search(_:k:ef:allowedIDs:)` with the default ef.
    public func search(_ query: [Float], k: Int, allowedIDs: Set<Int64>) -> [SearchHit] {
        search(query, k: k, ef: nil, allowedIDs: allowedIDs)
    }

    /// The `k` best vectors among `allowedIDs`: scanned exactly when the policy finds the set
    /// small against the graph, else searched in the graph with the set as filter.
    public func search(_ query: [Float], k: Int, ef: Int?, allowedIDs: Set<Int64>) -> [SearchHit] {
        VectorValidation.requireQuery(query, dimension: dimension)
        return lock.withReadLock {
            scratchPool.withScratch { scratch in searchLocked(query, k: k, ef: ef, filter: nil, allowed: allowedIDs, scratch: scratch) }
        }
    }

    /// `search(_:k:ef:filter:threads:)` with the default ef and threads.
    public func search(_ queries: [[Float]], k: Int, filter: IDFilter?) -> [[SearchHit]] {
        search(queries, k: k, ef: nil, filter: filter)
    }

    /// Several queries at once, spread over `threads` threads (default: the index's).
    public func search(_ queries: [[Float]], k: Int, ef: Int?, filter: IDFilter? = nil, threads: Int? = nil) -> [[SearchHit]] {
        for query in queries { VectorValidation.requireQuery(query, dimension: dimension) }
        return lock.withReadLock {
            let threadCount = max(1, min(threads ?? threadLimit, queries.count))
            var results = [[SearchHit]](repeating: [], count: queries.count)
            results.withUnsafeMutableBufferPointer { buffer in
                let output = UnsafeTransfer(buffer)
                let cursor = QueryCursor()
                Parallel.run(threadCount) { _ in
                    self.scratchPool.withScratch { scratch in
                        while true {
                            let index = cursor.next.wrappingAdd(1, ordering: .relaxed).oldValue
                            guard index < queries.count else { break }
                            output.value[index] = self.searchLocked(
                                queries[index], k: k, ef: ef, filter: filter, allowed: nil, scratch: scratch
                            )
                        }
                    }
                }
            }
            return results
        }
    }

    /// The search proper; the caller holds the read lock.
    func searchLocked(
        _ query: [Float], k: Int, ef: Int?, filter: IDFilter?, allowed: Set<Int64>?, scratch: GraphScratch
    ) -> [SearchHit] {
        let liveCount = nodes.count
        guard k > 0, entry >= 0, liveCount > 0 else { return [] }
        let ef = max(ef ?? parameters.efSearch, k)
        scratch.reserve(nodes: storage.count, ef: ef, degree: storage.maxDegree0, stride: storage.stride)
        query.withUnsafeBufferPointer { components in
            scratch.query.update(from: components.baseAddress!, count: dimension)
        }
        if storage.stride > dimension {
            (scratch.query + dimension).update(repeating: 0, count: storage.stride - dimension)
        }
        let graph = storage.layout()

        var filter = filter
        if let allowed {
            if policyValue.searchesExactly(allowedCount: allowed.count, totalCount: liveCount) {
                var allowedNodes = allowed.compactMap { nodes[$0] }
                allowedNodes.sort()
                return scan(graph, nodes: allowedNodes, k: k, filter: nil, scratch: scratch)
            }
            filter = { allowed.contains($0) }
        } else if let predicate = filter, policyValue.searchesExactly(
            allowedCount: estimatedMatches(predicate, liveCount: liveCount), totalCount: liveCount
        ) {
            return scan(graph, nodes: nil, k: k, filter: predicate, scratch: scratch)
        }

        let found = Kernels.searchGraph(graph, entry: entry, maxLevel: maxLevel, ef: ef, k: k, filter: filter, scratch: scratch)
        let hits = (0..<found).map { index in
            let item = scratch.selection[index]
            return SearchHit(id: storage.ids[Int(item.node)], score: item.score)
        }
        // A filter the sample misjudged can leave the walk short of k: answer exactly instead.
        if let filter, hits.count < min(k, liveCount) {
            return scan(graph, nodes: nil, k: k, filter: filter, scratch: scratch)
        }
        return hits
    }

    /// How many live vectors `filter` keeps, estimated from an evenly spread sample of nodes.
    func estimatedMatches(_ filter: IDFilter, liveCount: Int) -> Int {
        let total = storage.count
        let samples = min(total, 256)
        var live = 0, kept = 0
        for sample in 0..<samples {
            let node = sample * total / samples
            guard storage.deleted[node] == 0 else { continue }
            live += 1
            if filter(storage.ids[node]) { kept += 1 }
        }
        guard live > 0 else { return 0 }
        return kept * liveCount / live
    }

    /// Exact top-k over `nodes` (all when nil) that `filter` keeps.
    private func scan(_ graph: GraphLayout, nodes: [Int32]?, k: Int, filter: IDFilter?, scratch: GraphScratch) -> [SearchHit] {
        let lists = TopKLists(lists: 1, k: k)
        defer { lists.deallocate() }
        let query = UnsafePointer(scratch.query)
        if let nodes {
            nodes.withUnsafeBufferPointer { buffer in
                Kernels.scanGraph(graph, query: query, nodes: buffer.baseAddress, count: buffer.count, filter: filter, lists: lists)
            }
        } else {
            Kernels.scanGraph(graph, query: query, nodes: nil, count: storage.count, filter: filter, lists: lists)
        }
        return TopKLists.mergedHits([lists], list: 0, k: k)
    }
}

/// The next query of a batch, shared by the threads searching it.
private final class QueryCursor: Sendable {
    let next = Atomic<Int>(0)
}
