import Foundation
import VectorIndexLayout

/// Approximate nearest-neighbour search on a Hierarchical Navigable Small World graph
/// (Malkov & Yashunin, 2016): logarithmic search time for large collections at a recall the
/// caller sets through `ef`.
///
/// Vectors are stored as 64-byte aligned rows; each node's level-0 links sit in one fixed-size
/// list, so a search touches a node's neighbours through one or two cache lines. Deletion marks
/// a node (searches walk through it but never return it); `compact()` rebuilds without the
/// marked ones. Given the same seed and the same insertions, single-threaded building makes
/// the same graph every time. Searches run concurrently; changes wait for them.
public final class HNSWIndex: NearestNeighbourIndex, @unchecked Sendable {
    /// The number of components of every vector.
    public let dimension: Int
    /// How the graph is built and searched.
    public let parameters: Parameters
    let lock = ReadWriteLock()
    var storage: GraphStorage
    /// Live ids and their nodes.
    var nodes: [Int64: Int32] = [:]
    var random: SeededGenerator
    var entry: Int32 = -1
    var maxLevel = -1
    var policyValue: IndexPolicy
    var threadLimit: Int
    let scratchPool = ScratchPool()

    /// An empty graph of `dimension`-component vectors. `policy` decides when a filtered search
    /// scans the allowed vectors instead of walking the graph; batched searches use up to
    /// `threads` threads (nil: one per core).
    public init(
        dimension: Int, parameters: Parameters = Parameters(), policy: IndexPolicy = IndexPolicy(), threads: Int? = nil
    ) throws(VectorIndexError) {
        guard dimension > 0 else { throw .invalidParameter("dimension must be positive (got \(dimension))") }
        try parameters.validate()
        self.dimension = dimension
        self.parameters = parameters
        self.policyValue = policy
        self.threadLimit = max(1, threads ?? Parallel.processorCount)
        random = SeededGenerator(seed: parameters.seed)
        storage = GraphStorage(dimension: dimension, maxDegree: parameters.m, maxDegree0: 2 * parameters.m)
    }

    /// The number of live (not deleted) vectors.
    public var count: Int { lock.withReadLock { nodes.count } }

    /// Nodes marked deleted and still in the graph; `compact()` removes them.
    public var deletedCount: Int { lock.withReadLock { storage.count - nodes.count } }

    /// The number of levels above level 0.
    public var topLevel: Int { lock.withReadLock { maxLevel } }

    /// When a filtered search scans the allowed vectors instead of walking the graph.
    public var policy: IndexPolicy {
        get { lock.withReadLock { policyValue } }
        set { lock.withWriteLock { policyValue = newValue } }
    }

    /// The most threads a batched search or a parallel build uses (at least 1).
    public var threads: Int {
        get { lock.withReadLock { threadLimit } }
        set { lock.withWriteLock { threadLimit = max(1, newValue) } }
    }

    /// Whether a live vector with this id is in the index.
    public func contains(id: Int64) -> Bool {
        lock.withReadLock { nodes[id] != nil }
    }

    /// The stored vector for `id`, if live.
    public func vector(id: Int64) -> [Float]? {
        lock.withReadLock { nodes[id].map { storage.vector($0) } }
    }

    /// The ids of all live vectors, in insertion order.
    public var ids: [Int64] {
        lock.withReadLock { nodes.sorted { $0.value < $1.value }.map(\.key) }
    }

    /// Marks the vector deleted: searches no longer return it.
    @discardableResult
    public func remove(id: Int64) -> Bool {
        lock.withWriteLock {
            guard let node = nodes.removeValue(forKey: id) else { return false }
            storage.markDeleted(node)
            return true
        }
    }

    /// Rebuilds the graph from the live vectors (in insertion order, from the original seed),
    /// dropping deleted nodes and their memory.
    public func compact(threads: Int = 1) {
        lock.withWriteLock {
            let live = nodes.values.sorted()
            let old = storage
            storage = GraphStorage(dimension: dimension, maxDegree: parameters.m, maxDegree0: 2 * parameters.m)
            random = SeededGenerator(seed: parameters.seed)
            entry = -1
            maxLevel = -1
            nodes.removeAll(keepingCapacity: true)
            let levels = live.map { _ in drawLevel() }
            storage.reserve(nodes: live.count, upperWords: levels.reduce(0, +) * storage.upperStride)
            for (node, level) in zip(live, levels) {
                let id = old.ids[Int(node)]
                nodes[id] = storage.append(id: id, vector: old.vectors + Int(node) * old.stride, level: level)
            }
            link(0..<storage.count, threads: threads)
            scratchPool.removeAll()
        }
    }

    /// 1 / ln(m): the level distribution's scale, so that each level has about 1/m of the
    /// nodes of the one below.
    var levelMultiplier: Double { 1 / log(Double(parameters.m)) }

    /// A random level for a new node: ⌊−ln(U) · mL⌋.
    func drawLevel() -> Int {
        let uniform = random.nextUnit()
        return min(Int(-log(1 - uniform) * levelMultiplier), 63)
    }
}
