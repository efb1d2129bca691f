import SibylCore

/// The rule that picks exact search or HNSW, for a whole collection and for one filtered search.
///
/// - A collection is searched exactly below `graphThreshold` vectors (20,000 by default: a
///   scan of 20,000 × 384 floats takes about 1–2 ms on one core, below what the graph saves,
///   and needs no build), and through HNSW from there up.
/// - A filtered search over an HNSW graph scans the allowed vectors exactly when there are few
///   of them: below `graphThreshold`, or when scanning `n` allowed vectors costs less than
///   the graph walk, which must visit about `graphVisits × total / n` nodes to find enough
///   that pass the filter (`n² ≤ graphVisits × total`).
public struct IndexPolicy: Sendable, Hashable, Codable {
    /// What the caller asked for; `.automatic` applies the size rule.
    public var choice: IndexChoice
    /// The collection size from which `.automatic` uses HNSW.
    public var graphThreshold: Int
    /// About how many nodes an unfiltered graph search visits (ef 64–128 × ~20 new neighbours
    /// per expanded node); the cost model of filtered searches.
    public var graphVisits: Int

    /// The default rule: exact below 20,000 vectors, HNSW above.
    public init(choice: IndexChoice = .automatic, graphThreshold: Int = 20_000, graphVisits: Int = 2_000) {
        self.choice = choice
        self.graphThreshold = graphThreshold
        self.graphVisits = graphVisits
    }

    /// `.exact` or `.hnsw` for a collection of `count` vectors.
    public func resolvedChoice(forCount count: Int) -> IndexChoice {
        switch choice {
        case .exact, .hnsw: return choice
        case .automatic: return count < graphThreshold ? .exact : .hnsw
        }
    }

    /// Whether a search restricted to `allowedCount` of `totalCount` vectors should scan them
    /// exactly rather than walk the graph with a filter: always with `.exact`, never with
    /// `.hnsw`, by the cost rule with `.automatic`.
    public func searchesExactly(allowedCount: Int, totalCount: Int) -> Bool {
        switch choice {
        case .exact: return true
        case .hnsw: return false
        case .automatic:
            if allowedCount < graphThreshold { return true }
            return Double(allowedCount) * Double(allowedCount) <= Double(graphVisits) * Double(totalCount)
        }
    }

    /// An empty index of the kind this policy picks for a collection expected to hold
    /// `expectedCount` vectors.
    public func makeIndex(
        dimension: Int, expectedCount: Int, parameters: HNSWIndex.Parameters = HNSWIndex.Parameters()
    ) throws(VectorIndexError) -> any NearestNeighbourIndex {
        switch resolvedChoice(forCount: expectedCount) {
        case .hnsw: return try HNSWIndex(dimension: dimension, parameters: parameters, policy: self)
        default: return ExactIndex(dimension: dimension, capacity: expectedCount)
        }
    }
}
