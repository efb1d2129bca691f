/// A predicate on vector ids that a search keeps results to (say, chunks of one collection
/// or document). It may be called from several threads at once.
public typealias IDFilter = @Sendable (Int64) -> Bool

/// A searchable set of fixed-dimension vectors keyed by `Int64` ids: `ExactIndex` or
/// `HNSWIndex`. Vectors are expected to be L2-normalised, so scores are cosine similarities.
///
/// Implementations are safe to search from several threads at once; changes wait for searches
/// in progress to finish.
public protocol NearestNeighbourIndex: AnyObject, Sendable {
    /// The number of components of every vector.
    var dimension: Int { get }
    /// The number of vectors that searches can return.
    var count: Int { get }
    /// Whether a vector with this id is in the index.
    func contains(id: Int64) -> Bool
    /// Adds a vector, replacing any with the same id.
    func add(id: Int64, vector: [Float]) throws(VectorIndexError)
    /// Adds vectors, replacing any with the same ids.
    func add(ids: [Int64], vectors: [[Float]]) throws(VectorIndexError)
    /// Removes the vector with this id; returns whether there was one.
    @discardableResult
    func remove(id: Int64) -> Bool
    /// The `k` vectors scoring highest against `query`, best first, among those `filter` keeps.
    func search(_ query: [Float], k: Int, filter: IDFilter?) -> [SearchHit]
    /// The `k` vectors scoring highest against `query` among `allowedIDs`; knowing the set's
    /// size lets an index choose the cheaper way to search.
    func search(_ query: [Float], k: Int, allowedIDs: Set<Int64>) -> [SearchHit]
    /// `search(_:k:filter:)` for several queries, spread over the index's threads.
    func search(_ queries: [[Float]], k: Int, filter: IDFilter?) -> [[SearchHit]]
}

extension NearestNeighbourIndex {
    /// The `k` vectors scoring highest against `query`, best first.
    public func search(_ query: [Float], k: Int) -> [SearchHit] {
        search(query, k: k, filter: nil)
    }

    /// The `k` best vectors for each query, best first.
    public func search(_ queries: [[Float]], k: Int) -> [[SearchHit]] {
        search(queries, k: k, filter: nil)
    }
}
