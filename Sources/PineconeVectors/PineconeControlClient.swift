import Foundation
import Logging
import SibylCore

/// A client for Pinecone's control plane (`https://api.pinecone.io`): create, describe, list and
/// delete indexes, and the data-plane client for an index from its `host`.
public struct PineconeControlClient: Sendable {
    /// Pinecone's control plane.
    public static let defaultURL = "https://api.pinecone.io"

    let connection: PineconeConnection

    public init(
        baseURL: String = PineconeControlClient.defaultURL, apiKey: String,
        transport: any PineconeTransport = HTTPClientTransport(),
        retryPolicy: RetryPolicy = .pinecone,
        timeout: Duration = .seconds(30),
        logger: Logger = Logger(label: "sibyl.pinecone")
    ) {
        connection = PineconeConnection(baseURL: baseURL, apiKey: apiKey, transport: transport, retryPolicy: retryPolicy, timeout: timeout, logger: logger)
    }

    /// Creates an index (answers once Pinecone has accepted it; it may not be ready yet).
    public func createIndex(_ request: PineconeIndexRequest) async throws -> PineconeIndexModel {
        try PineconeLimits.check(indexName: request.name)
        guard (1...PineconeLimits.maxDimension).contains(request.dimension) else {
            throw PineconeError.invalidRequest("an index's dimension must be between 1 and \(PineconeLimits.maxDimension), not \(request.dimension)")
        }
        return try await connection.json("POST", "/indexes", body: request, as: PineconeIndexModel.self, operation: "create index")
    }

    /// The index with this name; `PineconeError.api` with status 404 when there is none.
    public func describeIndex(named name: String) async throws -> PineconeIndexModel {
        try PineconeLimits.check(indexName: name)
        return try await connection.json("GET", "/indexes/" + PineconeConnection.segment(name), as: PineconeIndexModel.self, operation: "describe index")
    }

    /// The index with this name, or nil when there is none.
    public func indexIfExists(named name: String) async throws -> PineconeIndexModel? {
        do {
            return try await describeIndex(named: name)
        } catch let error as PineconeError where error.status == 404 {
            return nil
        }
    }

    /// Every index of the project.
    public func listIndexes() async throws -> [PineconeIndexModel] {
        try await connection.json("GET", "/indexes", as: IndexList.self, operation: "list indexes").indexes ?? []
    }

    /// Deletes an index and all its vectors.
    public func deleteIndex(named name: String) async throws {
        try PineconeLimits.check(indexName: name)
        _ = try await connection.send("DELETE", "/indexes/" + PineconeConnection.segment(name), operation: "delete index")
    }

    /// Describes the index until it is ready, or throws after `timeout`.
    public func waitUntilReady(named name: String, timeout: Duration = .seconds(300), pollEvery interval: Duration = .seconds(2)) async throws -> PineconeIndexModel {
        let deadline = ContinuousClock.now + timeout
        while true {
            let index = try await describeIndex(named: name)
            if index.status.ready { return index }
            guard ContinuousClock.now + interval < deadline else {
                throw PineconeError.timeout("index \(name) still \(index.status.state) after \(timeout)")
            }
            try await Task.sleep(for: interval)
        }
    }

    /// The data-plane URL of an index: its `host`, with the control plane's scheme when the host
    /// has none (https for Pinecone; plain http only for a local test server).
    public func dataPlaneURL(host: String) -> String {
        if host.hasPrefix("http://") || host.hasPrefix("https://") { return host }
        let scheme = connection.baseURL.hasPrefix("http://") ? "http" : "https"
        return "\(scheme)://\(host)"
    }

    /// A data-plane client for an index, with this client's key, transport and retries.
    public func indexClient(for index: PineconeIndexModel) -> PineconeIndexClient {
        PineconeIndexClient(
            baseURL: dataPlaneURL(host: index.host), apiKey: connection.apiKey, dimension: index.dimension,
            transport: connection.transport, retryPolicy: connection.retryPolicy, timeout: connection.timeout, logger: connection.logger
        )
    }
}
