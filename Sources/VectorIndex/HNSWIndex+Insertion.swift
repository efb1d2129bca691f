import Synchronization
import VectorIndexLayout

extension HNSWIndex {
    /// Inserts a vector (one thread: deterministic), replacing any with the same id.
    public func add(id: Int64, vector: [Float]) throws(VectorIndexError) {
        try insert(ids: [id], vectors: [vector], threads: 1)
    }

    /// Inserts vectors in order on one thread, replacing any with the same ids.
    public func add(ids: [Int64], vectors: [[Float]]) throws(VectorIndexError) {
        try insert(ids: ids, vectors: vectors, threads: 1)
    }

    /// Inserts one vector, replacing (marking deleted) any with the same id.
    public func insert(id: Int64, vector: [Float]) throws(VectorIndexError) {
        try insert(ids: [id], vectors: [vector], threads: 1)
    }

    /// Inserts vectors in order, replacing any with the same ids. With `threads > 1` several
    /// nodes are linked at once (faster, but the graph then depends on thread timing); with
    /// one thread the same insertions always build the same graph.
    public func insert(ids: [Int64], vectors: [[Float]], threads: Int = 1) throws(VectorIndexError) {
        try VectorValidation.check(ids: ids, vectors: vectors, dimension: dimension)
        lock.withWriteLock {
            appendAndLink(ids: ids, threads: threads) { index, level in
                vectors[index].withUnsafeBufferPointer { components in
                    storage.append(id: ids[index], vector: components.baseAddress!, level: level)
                }
            }
        }
    }

    /// `insert(ids:vectors:threads:)` for vectors stored one after another (as loaded from a
    /// BLOB).
    public func insert(ids: [Int64], contiguousVectors: [Float], threads: Int = 1) throws(VectorIndexError) {
        try VectorValidation.check(ids: ids, contiguous: contiguousVectors, dimension: dimension)
        lock.withWriteLock {
            contiguousVectors.withUnsafeBufferPointer { components in
                appendAndLink(ids: ids, threads: threads) { index, level in
                    storage.append(id: ids[index], vector: components.baseAddress! + index * dimension, level: level)
                }
            }
        }
    }

    /// Draws levels, appends every node (marking replaced ids deleted), then links them; the
    /// caller holds the write lock.
    private func appendAndLink(ids: [Int64], threads: Int, append: (_ index: Int, _ level: Int) -> Int32) {
        let first = storage.count
        let levels = ids.map { _ in drawLevel() }
        storage.reserve(nodes: first + ids.count, upperWords: storage.upperCount + levels.reduce(0, +) * storage.upperStride)
        for index in ids.indices {
            let id = ids[index]
            if let old = nodes[id] { storage.markDeleted(old) }
            nodes[id] = append(index, levels[index])
        }
        link(first..<storage.count, threads: threads)
    }

    /// Links appended nodes into the graph; the caller holds the write lock.
    func link(_ range: Range<Int>, threads: Int) {
        var start = range.lowerBound
        if entry < 0, start < range.upperBound {
            entry = Int32(start)
            maxLevel = Int(storage.levels[start])
            start += 1
        }
        guard start < range.upperBound else { return }
        let efConstruction = parameters.efConstruction, maxDegree = parameters.m
        let threadCount = min(max(1, threads), (range.upperBound - start) / 64 + 1)
        if threadCount == 1 {
            let graph = storage.layout()
            scratchPool.withScratch { scratch in
                scratch.reserve(nodes: storage.count, ef: efConstruction, degree: storage.maxDegree0, stride: storage.stride)
                for node in start..<range.upperBound {
                    Kernels.insertNode(
                        Int32(node), graph: graph, entry: entry, maxLevel: maxLevel,
                        efConstruction: efConstruction, maxDegree: maxDegree, scratch: scratch
                    )
                    let level = Int(storage.levels[node])
                    if level > maxLevel {
                        entry = Int32(node)
                        maxLevel = level
                    }
                }
            }
            return
        }

        let locks = UnsafeMutablePointer<NodeLock>.allocate(capacity: storage.count)
        for node in 0..<storage.count { (locks + node).initialize(to: NodeLock(0)) }
        defer {
            locks.deinitialize(count: storage.count)
            locks.deallocate()
        }
        let shared = UnsafeTransfer(storage.layout(locks: locks))
        let state = SharedEntryPoint(entry: entry, maxLevel: maxLevel, next: start)
        let end = range.upperBound, nodeCount = storage.count
        let pool = scratchPool
        Parallel.run(threadCount) { _ in
            let graph = shared.value
            pool.withScratch { scratch in
                scratch.reserve(nodes: nodeCount, ef: efConstruction, degree: graph.maxDegree0, stride: graph.stride)
                while true {
                    let node = state.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard node < end else { break }
                    let level = Int(graph.levels[node])
                    let current = state.point.withLock { $0 }
                    if level > current.maxLevel {
                        // A new top level: link it while holding the entry point, as hnswlib does.
                        state.point.withLock { point in
                            Kernels.insertNode(
                                Int32(node), graph: graph, entry: point.entry, maxLevel: point.maxLevel,
                                efConstruction: efConstruction, maxDegree: maxDegree, scratch: scratch
                            )
                            if level > point.maxLevel { point = (Int32(node), level) }
                        }
                    } else {
                        Kernels.insertNode(
                            Int32(node), graph: graph, entry: current.entry, maxLevel: current.maxLevel,
                            efConstruction: efConstruction, maxDegree: maxDegree, scratch: scratch
                        )
                    }
                }
            }
        }
        (entry, maxLevel) = state.point.withLock { $0 }
    }
}

/// The entry point and the next node to link, shared by the threads of a parallel build.
private final class SharedEntryPoint: Sendable {
    let point: Mutex<(entry: Int32, maxLevel: Int)>
    let next: Atomic<Int>

    init(entry: Int32, maxLevel: Int, next: Int) {
        point = Mutex((entry, maxLevel))
        self.next = Atomic(next)
    }
}
