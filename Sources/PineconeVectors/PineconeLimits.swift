import Foundation

/// Pinecone's rules that its OpenAPI document states in prose or not at all (its array limits use
/// string keywords, so a validator enforces none of them), checked before a request is sent.
public enum PineconeLimits {
    /// Most vectors in one upsert (Pinecone's recommended batch limit).
    public static let maxVectorsPerUpsert = 1_000
    /// Largest upsert request body (Pinecone's documented limit).
    public static let maxUpsertBytes = 2 * 1024 * 1024
    /// Longest vector id.
    public static let maxIDLength = 512
    /// Largest metadata of one vector, as JSON.
    public static let maxMetadataBytes = 40 * 1024
    /// Most ids in one delete or fetch.
    public static let maxIDsPerRequest = 1_000
    /// Most query requests one search sends at once (the limit on a query's `queries`).
    public static let maxQueries = 10
    /// Largest `topK`.
    public static let maxTopK = 10_000
    /// Largest dense dimension.
    public static let maxDimension = 20_000

    /// Checks a vector id: 1 to 512 characters.
    public static func check(id: String) throws {
        guard !id.isEmpty, id.count <= maxIDLength else {
            throw PineconeError.invalidRequest("a vector id must have 1 to \(maxIDLength) characters, not \(id.count) (\(id.prefix(40))…)")
        }
    }

    /// Checks vector values: not empty, finite, and exactly the index's dimension when it is known.
    public static func check(values: [Float], dimension: Int?, id: String?) throws {
        let what = id.map { "vector \($0)" } ?? "the query vector"
        guard !values.isEmpty else { throw PineconeError.invalidRequest("\(what) has no values") }
        guard values.count <= maxDimension else { throw PineconeError.invalidRequest("\(what) has \(values.count) values; Pinecone takes at most \(maxDimension)") }
        if let dimension, values.count != dimension {
            throw PineconeError.invalidRequest("\(what) has \(values.count) values; the index holds \(dimension)-dimensional vectors (a different embedding model needs another index)")
        }
        guard values.allSatisfy(\.isFinite) else { throw PineconeError.invalidRequest("\(what) holds a value that is not a finite number") }
    }

    /// Checks metadata: flat (strings, numbers, booleans, lists of strings) and at most 40 KB as JSON.
    public static func check(metadata: PineconeMetadata, id: String) throws {
        for (key, value) in metadata {
            switch value {
            case .string, .integer, .bool: continue
            case .number(let number) where number.isFinite: continue
            case .array(let items) where items.allSatisfy({ if case .string = $0 { true } else { false } }): continue
            default:
                throw PineconeError.invalidRequest("metadata '\(key)' of vector \(id) must be a string, a number, a boolean or a list of strings")
            }
        }
        let size = try PineconeConnection.encoder.encode(metadata).count
        guard size <= maxMetadataBytes else {
            throw PineconeError.invalidRequest("the metadata of vector \(id) is \(size) bytes; Pinecone takes at most \(maxMetadataBytes)")
        }
    }

    /// Checks a whole vector.
    public static func check(_ vector: PineconeVector, dimension: Int?) throws {
        try check(id: vector.id)
        try check(values: vector.values, dimension: dimension, id: vector.id)
        if let metadata = vector.metadata { try check(metadata: metadata, id: vector.id) }
    }

    /// Splits vectors into upsert requests of at most 1,000 vectors and 2 MB each, in order.
    public static func upsertBatches(_ vectors: [PineconeVector], namespace: String, maxBytes: Int = maxUpsertBytes, maxCount: Int = maxVectorsPerUpsert) throws -> [[PineconeVector]] {
        // `{"namespace":"…","vectors":[…]}` around the vectors, with room for escapes.
        let envelope = 32 + namespace.utf8.count * 2
        var batches: [[PineconeVector]] = []
        var current: [PineconeVector] = []
        var size = envelope
        for vector in vectors {
            let vectorSize = try PineconeConnection.encoder.encode(vector).count + 1
            guard envelope + vectorSize <= maxBytes else {
                throw PineconeError.invalidRequest("vector \(vector.id) alone makes a request of \(envelope + vectorSize) bytes; Pinecone takes at most \(maxBytes)")
            }
            if current.count == maxCount || size + vectorSize > maxBytes {
                batches.append(current)
                current = []
                size = envelope
            }
            current.append(vector)
            size += vectorSize
        }
        if !current.isEmpty { batches.append(current) }
        return batches
    }

    /// Checks an index name: 1 to 45 lower-case letters, digits or '-', not starting or ending with '-'.
    public static func check(indexName name: String) throws {
        let allowed = name.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }
        guard (1...45).contains(name.count), allowed, !name.hasPrefix("-"), !name.hasSuffix("-") else {
            throw PineconeError.invalidRequest("'\(name)' is not a valid index name: 1 to 45 lower-case letters, digits or '-', not starting or ending with '-'")
        }
    }
}
