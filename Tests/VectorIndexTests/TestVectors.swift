import SibylCore
import VectorIndex

/// Deterministic test data: unit vectors from a seeded stream, and a brute-force reference.
enum TestVectors {
    /// `count` random unit vectors of `dimension` components.
    static func unit(_ count: Int, dimension: Int, seed: UInt64) -> [[Float]] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var vector = (0..<dimension).map { _ in Float.random(in: -1...1, using: &random) }
            let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
            for index in vector.indices { vector[index] /= norm }
            return vector
        }
    }

    /// The exact top `k` by a double-precision scan: best score first, ties to the lower id.
    static func bruteForce(
        _ query: [Float], ids: [Int64], vectors: [[Float]], k: Int, keep: (Int64) -> Bool = { _ in true }
    ) -> [(id: Int64, score: Double)] {
        var scored: [(id: Int64, score: Double)] = []
        for (id, vector) in zip(ids, vectors) where keep(id) {
            var sum = 0.0
            for index in vector.indices { sum += Double(vector[index]) * Double(query[index]) }
            scored.append((id, sum))
        }
        scored.sort { $0.score > $1.score || ($0.score == $1.score && $0.id < $1.id) }
        return Array(scored.prefix(k))
    }

    /// Recall of `found` against the exact `truth` lists.
    static func recall(_ found: [[SearchHit]], truth: [[(id: Int64, score: Double)]]) -> Double {
        var hits = 0, total = 0
        for (result, exact) in zip(found, truth) {
            hits += Set(result.map(\.id)).intersection(exact.map(\.id)).count
            total += exact.count
        }
        return Double(hits) / Double(max(1, total))
    }
}
