import Foundation
import SibylCore

// The data plane's JSON (pinecone-db-data-2025-10.yaml), camelCase as the spec writes it. Optional
// fields are left out when nil; answers decode with every field optional except where the spec
// requires one, and unknown fields are ignored.

/// Metadata stored with a vector: Pinecone takes flat objects whose values are strings, numbers,
/// booleans or lists of strings (checked by `PineconeLimits.check(metadata:)`).
public typealias PineconeMetadata = [String: JSONValue]

/// A dense vector with its id and metadata (the spec's `Vector`).
public struct PineconeVector: Codable, Sendable, Hashable {
    public var id: String
    public var values: [Float]
    public var metadata: PineconeMetadata?

    public init(id: String, values: [Float], metadata: PineconeMetadata? = nil) {
        self.id = id
        self.values = values
        self.metadata = metadata
    }

    enum CodingKeys: String, CodingKey { case id, values, metadata }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        // Absent for a sparse-only vector.
        values = try container.decodeIfPresent([Float].self, forKey: .values) ?? []
        metadata = try container.decodeIfPresent(PineconeMetadata.self, forKey: .metadata)
    }
}

/// Read units an operation used.
public struct PineconeUsage: Codable, Sendable, Hashable {
    public var readUnits: Int?
}

/// One match of a query, best first (the spec's `ScoredVector`).
public struct PineconeMatch: Decodable, Sendable, Hashable {
    public var id: String
    /// Similarity by the index's metric; for cosine, higher is closer.
    public var score: Double?
    public var values: [Float]?
    public var metadata: PineconeMetadata?
}

/// A query's answer. The spec requires none of its fields.
public struct PineconeQueryResult: Decodable, Sendable, Hashable {
    public var matches: [PineconeMatch]
    public var namespace: String?
    public var usage: PineconeUsage?

    enum CodingKeys: String, CodingKey { case matches, namespace, usage }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        matches = try container.decodeIfPresent([PineconeMatch].self, forKey: .matches) ?? []
        namespace = try container.decodeIfPresent(String.self, forKey: .namespace)
        usage = try container.decodeIfPresent(PineconeUsage.self, forKey: .usage)
    }
}

/// What `describe_index_stats` reports (the spec's `IndexDescription`).
public struct PineconeIndexStats: Decodable, Sendable, Hashable {
    public struct NamespaceSummary: Decodable, Sendable, Hashable {
        public var vectorCount: Int?
    }
    public var namespaces: [String: NamespaceSummary]?
    public var dimension: Int?
    public var indexFullness: Double?
    public var totalVectorCount: Int?
    public var metric: String?
    public var vectorType: String?
}

struct UpsertRequest: Encodable {
    var vectors: [PineconeVector]
    var namespace: String
}

struct UpsertResponse: Decodable {
    var upsertedCount: Int?
}

struct QueryRequest: Encodable {
    var namespace: String
    var topK: Int
    var filter: JSONValue?
    var includeValues: Bool
    var includeMetadata: Bool
    var vector: [Float]
}

struct DeleteRequest: Encodable {
    var ids: [String]?
    var deleteAll: Bool?
    var namespace: String
    var filter: JSONValue?
}

struct FetchResponse: Decodable {
    var vectors: [String: PineconeVector]?
    var namespace: String?
    var usage: PineconeUsage?
}

struct ListResponse: Decodable {
    struct Item: Decodable { var id: String? }
    struct Pagination: Decodable { var next: String? }
    var vectors: [Item]?
    var pagination: Pagination?
    var namespace: String?
    var usage: PineconeUsage?
}

struct DescribeIndexStatsRequest: Encodable {
    var filter: JSONValue?
}
