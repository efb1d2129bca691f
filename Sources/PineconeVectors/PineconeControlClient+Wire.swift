import Foundation
import SibylCore

// The control plane's JSON (pinecone-db-control-2025-10.yaml), snake_case as that spec writes it.

/// An index as describe-index and list-indexes report it (the spec's `IndexModel`).
public struct PineconeIndexModel: Decodable, Sendable, Hashable {
    public struct Status: Decodable, Sendable, Hashable {
        public var ready: Bool
        public var state: String
    }
    public var name: String
    public var dimension: Int?
    public var metric: String
    /// Where the index's data plane is: a host name, usually without a scheme.
    public var host: String
    public var status: Status
    /// How the index is deployed (`{"serverless": {...}}`, `{"pod": {...}}` …), kept as sent.
    public var spec: JSONValue
    public var vectorType: String
    public var deletionProtection: String?

    enum CodingKeys: String, CodingKey {
        case name, dimension, metric, host, status, spec
        case vectorType = "vector_type"
        case deletionProtection = "deletion_protection"
    }
}

/// A serverless dense index to create (the spec's `CreateIndexRequest`).
public struct PineconeIndexRequest: Encodable, Sendable, Hashable {
    struct Spec: Encodable, Hashable {
        struct Serverless: Encodable, Hashable {
            var cloud: String
            var region: String
        }
        var serverless: Serverless
    }
    public var name: String
    public var dimension: Int
    public var metric: String
    var spec: Spec
    public var vectorType: String

    /// An index of `dimension`-dimensional dense vectors compared by cosine, serverless in `cloud`/`region`.
    public init(name: String, dimension: Int, metric: String = "cosine", cloud: String = "aws", region: String = "us-east-1") {
        self.name = name
        self.dimension = dimension
        self.metric = metric
        self.spec = Spec(serverless: .init(cloud: cloud, region: region))
        self.vectorType = "dense"
    }

    enum CodingKeys: String, CodingKey {
        case name, dimension, metric, spec
        case vectorType = "vector_type"
    }
}

struct IndexList: Decodable {
    var indexes: [PineconeIndexModel]?
}
