/// Checks on vectors handed to an index.
enum VectorValidation {
    /// Throws unless `vector` has `dimension` finite components.
    static func check(_ vector: [Float], id: Int64, dimension: Int) throws(VectorIndexError) {
        guard vector.count == dimension else {
            throw .dimensionMismatch(expected: dimension, actual: vector.count)
        }
        for component in vector where !component.isFinite {
            throw .nonFiniteVector(id: id)
        }
    }

    /// Throws unless there is one vector per id, each valid.
    static func check(ids: [Int64], vectors: [[Float]], dimension: Int) throws(VectorIndexError) {
        guard ids.count == vectors.count else { throw .countMismatch(ids: ids.count, vectors: vectors.count) }
        for (id, vector) in zip(ids, vectors) { try check(vector, id: id, dimension: dimension) }
    }

    /// Throws unless `contiguous` holds one finite `dimension`-component vector per id.
    static func check(ids: [Int64], contiguous: [Float], dimension: Int) throws(VectorIndexError) {
        guard contiguous.count == ids.count * dimension else {
            if contiguous.count % dimension != 0 {
                throw .dimensionMismatch(expected: dimension, actual: contiguous.count % dimension)
            }
            throw .countMismatch(ids: ids.count, vectors: contiguous.count / dimension)
        }
        for (offset, component) in contiguous.enumerated() where !component.isFinite {
            throw .nonFiniteVector(id: ids[offset / dimension])
        }
    }

    /// Precondition for queries: searching with the wrong dimension is a programming error.
    static func requireQuery(_ query: [Float], dimension: Int) {
        precondition(
            query.count == dimension,
            "query has \(query.count) components but the index holds \(dimension)-dimensional vectors"
        )
    }
}
