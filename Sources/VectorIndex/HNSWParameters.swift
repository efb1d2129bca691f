extension HNSWIndex {
    /// How an HNSW graph is built and searched.
    public struct Parameters: Sendable, Hashable, Codable {
        /// Links per node on the upper levels; level 0 allows twice as many. Higher gives
        /// better recall at more memory and build time; 16 suits 384-dimensional embeddings.
        public var m: Int
        /// Candidates considered when linking a new node; higher builds a better graph, slower.
        public var efConstruction: Int
        /// Candidates kept during a search when the caller gives no `ef` (raised to `k`).
        public var efSearch: Int
        /// Seed of the level generator: the same seed and insertions give the same graph.
        public var seed: UInt64

        /// Parameters as hnswlib and faiss commonly default them (M 16, efConstruction 200).
        public init(m: Int = 16, efConstruction: Int = 200, efSearch: Int = 64, seed: UInt64 = 0x5EED) {
            self.m = m
            self.efConstruction = efConstruction
            self.efSearch = efSearch
            self.seed = seed
        }

        func validate() throws(VectorIndexError) {
            guard (2...255).contains(m) else { throw .invalidParameter("m must be between 2 and 255 (got \(m))") }
            guard efConstruction >= 1 else { throw .invalidParameter("efConstruction must be positive (got \(efConstruction))") }
            guard efSearch >= 1 else { throw .invalidParameter("efSearch must be positive (got \(efSearch))") }
        }
    }
}
