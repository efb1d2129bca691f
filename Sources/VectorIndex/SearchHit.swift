/// One search result: a vector's id and its score against the query.
///
/// Scores are inner products; for L2-normalised vectors that is the cosine similarity, so
/// higher is closer. Results come best first, ties broken by the lower id.
public struct SearchHit: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The id the vector was added with (a chunk's row id).
    public var id: Int64
    /// The inner product of the vector and the query.
    public var score: Float

    /// A result for `id` scoring `score`.
    public init(id: Int64, score: Float) {
        self.id = id
        self.score = score
    }

    /// "id: score".
    public var description: String { "\(id): \(score)" }
}
