/// Exact nearest-neighbour search: every query is scored against every vector with SIMD
/// inner products (AVX-512 where the CPU has it), spread over several threads for large
/// collections, keeping the best `k` in bounded heaps.
///
/// Vectors live in one contiguous, 64-byte aligned buffer in panels of sixteen (see
/// `PanelStorage`); removal moves the last vector into the freed slot, so the buffer never has
/// holes. Searches may run concurrently from any number of threads; changes wait for them.
public final class ExactIndex: NearestNeighbourIndex, @unchecked Sendable {
    /// The number of components of every vector.
    public let dimension: Int
    let lock = ReadWriteLock()
    let storage: PanelStorage
    var slots: [Int64: Int32] = [:]
    var threadLimit: Int

    /// An empty index of `dimension`-component vectors, searching with up to `threads`
    /// threads (nil: one per core), with room for `capacity` vectors before it grows.
    public init(dimension: Int, threads: Int? = nil, capacity: Int = 0) {
        precondition(dimension > 0, "a vector index needs a positive dimension")
        self.dimension = dimension
        self.threadLimit = max(1, threads ?? Parallel.processorCount)
        storage = PanelStorage(dimension: dimension, capacity: capacity)
    }

    /// An index holding `vectors` under `ids` (later duplicates replace earlier ones).
    public convenience init(
        dimension: Int, ids: [Int64], vectors: [[Float]], threads: Int? = nil
    ) throws(VectorIndexError) {
        self.init(dimension: dimension, threads: threads, capacity: ids.count)
        try add(ids: ids, vectors: vectors)
    }

    /// The most threads one search uses (at least 1).
    public var threads: Int {
        get { lock.withReadLock { threadLimit } }
        set { lock.withWriteLock { threadLimit = max(1, newValue) } }
    }

    /// The number of vectors.
    public var count: Int { lock.withReadLock { storage.count } }

    /// The ids of all vectors, in storage order.
    public var ids: [Int64] {
        lock.withReadLock { Array(UnsafeBufferPointer(start: storage.ids, count: storage.count)) }
    }

    /// Whether a vector with this id is in the index.
    public func contains(id: Int64) -> Bool {
        lock.withReadLock { slots[id] != nil }
    }

    /// The stored vector for `id`, if any.
    public func vector(id: Int64) -> [Float]? {
        lock.withReadLock { slots[id].map { storage.vector(slot: Int($0)) } }
    }

    /// Adds a vector, replacing any with the same id.
    public func add(id: Int64, vector: [Float]) throws(VectorIndexError) {
        try add(ids: [id], vectors: [vector])
    }

    /// Adds vectors, replacing any with the same ids; nothing is added if one is invalid.
    public func add(ids: [Int64], vectors: [[Float]]) throws(VectorIndexError) {
        try VectorValidation.check(ids: ids, vectors: vectors, dimension: dimension)
        lock.withWriteLock {
            storage.reserve(storage.count + ids.count)
            for (id, vector) in zip(ids, vectors) {
                vector.withUnsafeBufferPointer { components in
                    if let slot = slots[id] {
                        storage.write(slot: Int(slot), id: id, vector: components.baseAddress!)
                    } else {
                        slots[id] = Int32(storage.append(id: id, vector: components.baseAddress!))
                    }
                }
            }
        }
    }

    /// Adds vectors stored one after another in `contiguousVectors` (as loaded from a BLOB),
    /// replacing any with the same ids.
    public func add(ids: [Int64], contiguousVectors: [Float]) throws(VectorIndexError) {
        try VectorValidation.check(ids: ids, contiguous: contiguousVectors, dimension: dimension)
        lock.withWriteLock {
            storage.reserve(storage.count + ids.count)
            contiguousVectors.withUnsafeBufferPointer { components in
                for (row, id) in ids.enumerated() {
                    let vector = components.baseAddress! + row * dimension
                    if let slot = slots[id] {
                        storage.write(slot: Int(slot), id: id, vector: vector)
                    } else {
                        slots[id] = Int32(storage.append(id: id, vector: vector))
                    }
                }
            }
        }
    }

    /// Removes the vector with this id (the last vector moves into its slot); returns whether
    /// there was one.
    @discardableResult
    public func remove(id: Int64) -> Bool {
        lock.withWriteLock {
            guard let slot = slots.removeValue(forKey: id) else { return false }
            if let moved = storage.removeSwappingLast(slot: Int(slot)) { slots[moved] = slot }
            return true
        }
    }

    /// Removes every vector.
    public func removeAll() {
        lock.withWriteLock {
            slots.removeAll()
            storage.removeAll()
        }
    }
}
