import Foundation
import SibylCore
import Logging

/// A client for one Pinecone index's data plane (`https://<host>`, from describe-index): upsert,
/// query, fetch, delete, list ids and statistics, with Pinecone's unwritten rules checked first.
public struct PineconeIndexClient: Sendable {
    let connection: PineconeConnection
    /// The index's dimension, when known: every vector sent must have exactly this many values.
    public let dimension: Int?

    /// A client for the index at `baseURL` (scheme and host), sending `apiKey`.
    public init(
        baseURL: String, apiKey: String, dimension: Int?,
        transport: any PineconeTransport = HTTPClientTransport(),
        retryPolicy: RetryPolicy = .pinecone,
        timeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "sibyl.pinecone")
    ) {
        connection = PineconeConnection(baseURL: baseURL, apiKey: apiKey, transport: transport, retryPolicy: retryPolicy, timeout: timeout, logger: logger)
        self.dimension = dimension
    }

    /// The index's URL.
    public var baseURL: String { connection.baseURL }

    /// Adds or replaces vectors in a namespace, in as many requests as the size limits need;
    /// returns how many Pinecone says it upserted.
    @discardableResult
    public func upsert(_ vectors: [PineconeVector], namespace: String) async throws -> Int {
        for vector in vectors { try PineconeLimits.check(vector, dimension: dimension) }
        var upserted = 0
        for batch in try PineconeLimits.upsertBatches(vectors, namespace: namespace) {
            let body = UpsertRequest(vectors: batch, namespace: namespace)
            let answer = try await connection.json("POST", "/vectors/upsert", body: body, as: UpsertResponse.self, operation: "upsert")
            upserted += answer.upsertedCount ?? batch.count
        }
        return upserted
    }

    /// The `topK` vectors of a namespace nearest to `vector`, among those `filter` selects.
    public func query(
        vector: [Float], topK: Int, namespace: String, filter: JSONValue? = nil, includeMetadata: Bool = false, includeValues: Bool = false
    ) async throws -> PineconeQueryResult {
        try PineconeLimits.check(values: vector, dimension: dimension, id: nil)
        guard (1...PineconeLimits.maxTopK).contains(topK) else {
            throw PineconeError.invalidRequest("topK must be between 1 and \(PineconeLimits.maxTopK), not \(topK)")
        }
        let body = QueryRequest(namespace: namespace, topK: topK, filter: filter, includeValues: includeValues, includeMetadata: includeMetadata, vector: vector)
        return try await connection.json("POST", "/query", body: body, as: PineconeQueryResult.self, operation: "query")
    }

    /// Vectors by id (those that exist), with their values and metadata.
    public func fetch(ids: [String], namespace: String) async throws -> [String: PineconeVector] {
        guard !ids.isEmpty else { return [:] }
        for id in ids {
            try PineconeLimits.check(id: id)
            // The spec: fetch "does not accept values containing spaces".
            guard !id.contains(" ") else { throw PineconeError.invalidRequest("fetch does not take ids with spaces ('\(id)')") }
        }
        guard ids.count <= PineconeLimits.maxIDsPerRequest else {
            throw PineconeError.invalidRequest("fetch takes at most \(PineconeLimits.maxIDsPerRequest) ids at once, not \(ids.count)")
        }
        let query = ids.map { ("ids", $0) } + [("namespace", namespace)]
        let answer = try await connection.json("GET", "/vectors/fetch", query: query, as: FetchResponse.self, operation: "fetch")
        return answer.vectors ?? [:]
    }

    /// Deletes vectors by id (1,000 per request).
    public func delete(ids: [String], namespace: String) async throws {
        for id in ids { try PineconeLimits.check(id: id) }
        for start in stride(from: 0, to: ids.count, by: PineconeLimits.maxIDsPerRequest) {
            let batch = Array(ids[start..<min(ids.count, start + PineconeLimits.maxIDsPerRequest)])
            try await delete(DeleteRequest(ids: batch, namespace: namespace), operation: "delete")
        }
    }

    /// Deletes the vectors of a namespace whose metadata matches `filter`.
    public func delete(filter: JSONValue, namespace: String) async throws {
        try await delete(DeleteRequest(namespace: namespace, filter: filter), operation: "delete by filter")
    }

    /// Deletes every vector of a namespace.
    public func deleteAll(namespace: String) async throws {
        try await delete(DeleteRequest(deleteAll: true, namespace: namespace), operation: "delete all")
    }

    /// A namespace that does not exist (Pinecone answers 404) holds nothing to delete, so that
    /// counts as done: documents added before Pinecone was switched on have no namespace there.
    private func delete(_ request: DeleteRequest, operation: String) async throws {
        do {
            _ = try await connection.json("POST", "/vectors/delete", body: request, as: JSONValue.self, operation: operation)
        } catch let error as PineconeError where error.status == 404 {
            connection.logger.debug("pinecone: nothing to delete in namespace \(request.namespace)")
        }
    }

    /// Every vector id of a namespace (optionally those starting with `prefix`), following
    /// `pagination.next` until Pinecone gives none.
    public func listIDs(namespace: String, prefix: String? = nil, pageSize: Int? = nil) async throws -> [String] {
        var ids: [String] = []
        var token: String?
        var seen: Set<String> = []
        repeat {
            var query: [(String, String)] = []
            if let prefix { query.append(("prefix", prefix)) }
            if let pageSize { query.append(("limit", String(pageSize))) }
            if let token { query.append(("paginationToken", token)) }
            query.append(("namespace", namespace))
            let page = try await connection.json("GET", "/vectors/list", query: query, as: ListResponse.self, operation: "list")
            ids += (page.vectors ?? []).compactMap(\.id)
            token = page.pagination?.next.flatMap { $0.isEmpty ? nil : $0 }
            // A server that hands out the same token again would keep this loop going forever.
            if let token, !seen.insert(token).inserted {
                throw PineconeError.invalidResponse("list: the pagination token \(token) came back twice")
            }
        } while token != nil
        return ids
    }

    /// How many vectors each namespace holds, the dimension and the metric.
    public func describeStats() async throws -> PineconeIndexStats {
        try await connection.json("POST", "/describe_index_stats", body: DescribeIndexStatsRequest(), as: PineconeIndexStats.self, operation: "describe index stats")
    }
}
