import VectorIndexLayout

/// The memory behind an `HNSWIndex`: per node a padded row, its id, level and deleted mark,
/// its fixed-size level-0 link list, and (for nodes above level 0) a block of upper-level
/// lists. Buffers grow by doubling; `layout` hands the kernels pointers into them.
final class GraphStorage {
    let dimension: Int
    /// Floats per row: the dimension rounded up to a multiple of 16.
    let stride: Int
    let maxDegree: Int
    let maxDegree0: Int
    private(set) var count = 0
    private(set) var capacity = 0
    private(set) var upperCount = 0
    private(set) var upperCapacity = 0
    private(set) var deletedCount = 0

    private(set) var vectors: UnsafeMutablePointer<Float>
    private(set) var ids: UnsafeMutablePointer<Int64>
    private(set) var deleted: UnsafeMutablePointer<UInt8>
    private(set) var levels: UnsafeMutablePointer<UInt8>
    private(set) var level0: UnsafeMutablePointer<Int32>
    private(set) var upperStart: UnsafeMutablePointer<Int32>
    private(set) var upper: UnsafeMutablePointer<Int32>

    var level0Stride: Int { maxDegree0 + 1 }
    var upperStride: Int { maxDegree + 1 }

    init(dimension: Int, maxDegree: Int, maxDegree0: Int) {
        self.dimension = dimension
        self.stride = (dimension + 15) / 16 * 16
        self.maxDegree = maxDegree
        self.maxDegree0 = maxDegree0
        vectors = Self.allocateRows(1, stride: stride)
        ids = .allocate(capacity: 1)
        deleted = .allocate(capacity: 1)
        levels = .allocate(capacity: 1)
        level0 = .allocate(capacity: maxDegree0 + 1)
        upperStart = .allocate(capacity: 1)
        upper = .allocate(capacity: 1)
        capacity = 1
        upperCapacity = 1
    }

    deinit {
        UnsafeMutableRawPointer(vectors).deallocate()
        ids.deallocate()
        deleted.deallocate()
        levels.deallocate()
        level0.deallocate()
        upperStart.deallocate()
        upper.deallocate()
    }

    private static func allocateRows(_ rows: Int, stride: Int) -> UnsafeMutablePointer<Float> {
        UnsafeMutableRawPointer.allocate(byteCount: max(1, rows * stride) * 4, alignment: 64)
            .bindMemory(to: Float.self, capacity: max(1, rows * stride))
    }

    private static func grow<T>(_ pointer: inout UnsafeMutablePointer<T>, count: Int, to capacity: Int) {
        let grown = UnsafeMutablePointer<T>.allocate(capacity: capacity)
        grown.moveInitialize(from: pointer, count: count)
        pointer.deallocate()
        pointer = grown
    }

    /// Makes room for `nodes` nodes and `upperWords` words of upper-level lists in all.
    func reserve(nodes: Int, upperWords: Int) {
        if nodes > capacity {
            let newCapacity = max(nodes, capacity * 2, 64)
            let rows = Self.allocateRows(newCapacity, stride: stride)
            rows.update(from: vectors, count: count * stride)
            UnsafeMutableRawPointer(vectors).deallocate()
            vectors = rows
            Self.grow(&ids, count: count, to: newCapacity)
            Self.grow(&deleted, count: count, to: newCapacity)
            Self.grow(&levels, count: count, to: newCapacity)
            Self.grow(&level0, count: count * level0Stride, to: newCapacity * level0Stride)
            Self.grow(&upperStart, count: count, to: newCapacity)
            capacity = newCapacity
        }
        if upperWords > upperCapacity {
            let newCapacity = max(upperWords, upperCapacity * 2, 256)
            Self.grow(&upper, count: upperCount, to: newCapacity)
            upperCapacity = newCapacity
        }
    }

    /// Appends a node with empty link lists and returns its number.
    func append(id: Int64, vector: UnsafePointer<Float>, level: Int) -> Int32 {
        let upperWords = level * upperStride
        reserve(nodes: count + 1, upperWords: upperCount + upperWords)
        let node = count
        let row = vectors + node * stride
        row.update(from: vector, count: dimension)
        if stride > dimension { (row + dimension).update(repeating: 0, count: stride - dimension) }
        ids[node] = id
        deleted[node] = 0
        levels[node] = UInt8(level)
        // Whole lists are zeroed, not just their counts: serialisation copies them entire.
        (level0 + node * level0Stride).initialize(repeating: 0, count: level0Stride)
        if level > 0 {
            upperStart[node] = Int32(upperCount)
            (upper + upperCount).initialize(repeating: 0, count: upperWords)
            upperCount += upperWords
        } else {
            upperStart[node] = -1
        }
        count += 1
        return Int32(node)
    }

    func markDeleted(_ node: Int32) {
        if deleted[Int(node)] == 0 { deletedCount += 1 }
        deleted[Int(node)] = 1
    }

    /// The kernels' view, with per-node locks while several threads insert.
    func layout(locks: UnsafeMutablePointer<NodeLock>? = nil) -> GraphLayout {
        GraphLayout(
            vectors: vectors, stride: stride, ids: ids, deleted: deleted, levels: levels, level0: level0,
            upperStart: upperStart, upper: upper, maxDegree: maxDegree, maxDegree0: maxDegree0,
            hasDeletions: deletedCount > 0, locks: locks
        )
    }

    /// The stored row of `node`, without padding.
    func vector(_ node: Int32) -> [Float] {
        Array(UnsafeBufferPointer(start: vectors + Int(node) * stride, count: dimension))
    }

    /// Takes over buffers filled by deserialisation.
    func adopt(count: Int, upperCount: Int) {
        precondition(count <= capacity && upperCount <= upperCapacity)
        self.count = count
        self.upperCount = upperCount
        deletedCount = (0..<count).reduce(0) { $0 + (deleted[$1] == 0 ? 0 : 1) }
    }
}
