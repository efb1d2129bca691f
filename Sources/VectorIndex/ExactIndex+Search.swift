import VectorIndexLayout

extension ExactIndex {
    /// Multiply-adds each extra thread must have to pay for itself: measured on 384-d vectors,
    /// a second thread lost below ~10,000 vectors per query and won from ~20,000 (where the
    /// scan stops fitting in cache), 426 → 264 µs.
    static let workPerThread = 1 << 21

    /// The `k` vectors scoring highest against `query` among those `filter` keeps, best first.
    public func search(_ query: [Float], k: Int, filter: IDFilter?) -> [SearchHit] {
        VectorValidation.requireQuery(query, dimension: dimension)
        return query.withUnsafeBufferPointer { buffer in
            lock.withReadLock { searchLocked(buffer.baseAddress!, queryCount: 1, k: k, filter: filter) }
        }.first ?? []
    }

    /// The `k` best vectors for each query: the whole batch shares each pass over the vectors.
    public func search(_ queries: [[Float]], k: Int, filter: IDFilter?) -> [[SearchHit]] {
        guard !queries.isEmpty else { return [] }
        var flat: [Float] = []
        flat.reserveCapacity(queries.count * dimension)
        for query in queries {
            VectorValidation.requireQuery(query, dimension: dimension)
            flat.append(contentsOf: query)
        }
        return search(contiguousQueries: flat, k: k, filter: filter)
    }

    /// `search(_:k:filter:)` for queries stored one after another in `contiguousQueries`
    /// (`count / dimension` of them): the whole batch shares each pass over the vectors.
    public func search(contiguousQueries: [Float], k: Int, filter: IDFilter? = nil) -> [[SearchHit]] {
        precondition(contiguousQueries.count % dimension == 0, "the queries' length is not a multiple of the dimension")
        let queryCount = contiguousQueries.count / dimension
        guard queryCount > 0 else { return [] }
        return contiguousQueries.withUnsafeBufferPointer { buffer in
            lock.withReadLock { searchLocked(buffer.baseAddress!, queryCount: queryCount, k: k, filter: filter) }
        }
    }

    /// Scores only the panels holding allowed ids when the set is a small part of the index.
    public func search(_ query: [Float], k: Int, allowedIDs: Set<Int64>) -> [SearchHit] {
        VectorValidation.requireQuery(query, dimension: dimension)
        let filter: IDFilter = { allowedIDs.contains($0) }
        return query.withUnsafeBufferPointer { buffer in
            lock.withReadLock {
                guard allowedIDs.count * 4 < storage.count else {
                    return searchLocked(buffer.baseAddress!, queryCount: 1, k: k, filter: filter).first ?? []
                }
                var panels = allowedIDs.compactMap { slots[$0].map { Int($0) >> 4 } }
                panels.sort()
                var runs: [Range<Int>] = []
                for panel in panels {
                    if let last = runs.last, last.upperBound >= panel {
                        runs[runs.count - 1] = last.lowerBound..<(panel + 1)
                    } else {
                        runs.append(panel..<(panel + 1))
                    }
                }
                return searchLocked(buffer.baseAddress!, queryCount: 1, k: k, filter: filter, runs: runs).first ?? []
            }
        }
    }

    /// The search proper; the caller holds the read lock. Without `runs`, the panels are
    /// split evenly between threads, each keeping its own lists, merged at the end.
    func searchLocked(
        _ queries: UnsafePointer<Float>, queryCount: Int, k: Int, filter: IDFilter?, runs: [Range<Int>]? = nil
    ) -> [[SearchHit]] {
        let k = min(k, storage.count)
        guard k > 0 else { return Array(repeating: [], count: queryCount) }
        let panelCount = storage.panelCount
        let work = queryCount * storage.count * dimension
        let threadCount = runs == nil ? max(1, min(threadLimit, work / Self.workPerThread, panelCount)) : 1
        let parts = (0..<threadCount).map { _ in TopKLists(lists: queryCount, k: k) }
        defer { parts.forEach { $0.deallocate() } }

        let shared = UnsafeTransfer((queries, storage.panels, storage.ids, parts))
        let rowCount = storage.count, dimension = self.dimension
        let ranges = runs ?? [0..<panelCount]
        Parallel.run(threadCount) { part in
            let (queries, panels, ids, parts) = shared.value
            for range in ranges {
                let share = (range.count + threadCount - 1) / threadCount
                let lower = range.lowerBound + part * share
                let upper = min(range.upperBound, lower + share)
                guard lower < upper else { continue }
                Kernels.scanPanels(
                    queries: queries, queryCount: queryCount, queryStride: dimension,
                    panels: panels, dimension: dimension, panelRange: lower..<upper, rowCount: rowCount,
                    ids: ids, filter: filter, lists: parts[part]
                )
            }
        }
        return (0..<queryCount).map { TopKLists.mergedHits(parts, list: $0, k: k) }
    }
}
