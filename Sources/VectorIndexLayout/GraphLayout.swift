import Synchronization

/// A scored graph node: what the search heaps hold.
package typealias ScoredNode = (score: Float, node: Int32)

/// One spin-lock word per graph node, used only while several threads build the graph together.
package typealias NodeLock = Atomic<UInt8>

/// The HNSW graph as the kernels read and write it: plain pointers into storage that
/// `HNSWIndex` owns.
///
/// Vectors are rows of `stride` floats (the dimension rounded up to a multiple of 16, zero
/// padded). A level-0 link list is `1 + maxDegree0` words: a count, then node numbers. A node
/// with level `L ≥ 1` owns `L` lists of `1 + maxDegree` words in `upper`, starting at
/// `upperStart[node]` (−1 for nodes on level 0 only).
package struct GraphLayout {
    package var vectors: UnsafeMutablePointer<Float>
    package var stride: Int
    package var ids: UnsafeMutablePointer<Int64>
    package var deleted: UnsafeMutablePointer<UInt8>
    package var levels: UnsafeMutablePointer<UInt8>
    package var level0: UnsafeMutablePointer<Int32>
    package var upperStart: UnsafeMutablePointer<Int32>
    package var upper: UnsafeMutablePointer<Int32>
    package var maxDegree: Int
    package var maxDegree0: Int
    /// Whether any node is marked deleted (when none is, searches skip the check).
    package var hasDeletions: Bool
    /// Present while several threads insert at once; a node's lists are then read and written
    /// only under its lock.
    package var locks: UnsafeMutablePointer<NodeLock>?

    package init(
        vectors: UnsafeMutablePointer<Float>, stride: Int, ids: UnsafeMutablePointer<Int64>,
        deleted: UnsafeMutablePointer<UInt8>, levels: UnsafeMutablePointer<UInt8>,
        level0: UnsafeMutablePointer<Int32>, upperStart: UnsafeMutablePointer<Int32>,
        upper: UnsafeMutablePointer<Int32>, maxDegree: Int, maxDegree0: Int, hasDeletions: Bool,
        locks: UnsafeMutablePointer<NodeLock>?
    ) {
        self.vectors = vectors
        self.stride = stride
        self.ids = ids
        self.deleted = deleted
        self.levels = levels
        self.level0 = level0
        self.upperStart = upperStart
        self.upper = upper
        self.maxDegree = maxDegree
        self.maxDegree0 = maxDegree0
        self.hasDeletions = hasDeletions
        self.locks = locks
    }
}
