import Foundation
import SibylCore

/// A knowledge base's vectors in a Pinecone index: one namespace per collection, a passage's id as
/// the vector's id (in decimal), and its document's id as the number `document_id` in the vector's
/// metadata, which a search within one document filters on.
///
/// Pinecone is eventually consistent: a vector upserted a moment ago may not be found yet.
public final class PineconeVectorStore: VectorStore {
    /// The metadata key holding a passage's document id.
    public static let documentKey = "document_id"

    public let index: PineconeIndexClient
    /// Put before every collection name, so that several knowledge bases can share an index
    /// (`users/ID/` for an account on a shared server; empty for the local user).
    public let namespacePrefix: String
    /// The collections a search of all collections covers (names, without the prefix).
    let collections: @Sendable () async throws -> [String]

    /// A store in `index`. `collections` names what a search of every collection covers; without
    /// it, the namespaces the index's statistics list under the prefix are searched (those may lag).
    public init(index: PineconeIndexClient, namespacePrefix: String = "", collections: (@Sendable () async throws -> [String])? = nil) {
        self.index = index
        self.namespacePrefix = namespacePrefix
        if let collections {
            self.collections = collections
        } else {
            self.collections = { [index, namespacePrefix] in
                let names = try await index.describeStats().namespaces?.keys.sorted() ?? []
                return names.filter { $0.hasPrefix(namespacePrefix) }.map { String($0.dropFirst(namespacePrefix.count)) }
            }
        }
    }

    /// The Pinecone namespace of a collection.
    public func namespace(for collection: String) -> String {
        namespacePrefix + collection
    }

    public func upsert(_ records: [VectorRecord], namespace: String) async throws {
        guard !records.isEmpty else { return }
        let vectors = records.map { PineconeVector(id: String($0.id), values: $0.vector, metadata: [Self.documentKey: .integer($0.documentID)]) }
        try await index.upsert(vectors, namespace: self.namespace(for: namespace))
    }

    public func remove(ids: [Int64], namespace: String) async throws {
        guard !ids.isEmpty else { return }
        try await index.delete(ids: ids.map { String($0) }, namespace: self.namespace(for: namespace))
    }

    /// Removes a document's vectors.
    public func remove(documentID: Int64, namespace: String) async throws {
        try await index.delete(filter: Self.filter(documentID: documentID), namespace: self.namespace(for: namespace))
    }

    /// Removes every vector of a collection.
    public func removeAll(namespace: String) async throws {
        try await index.deleteAll(namespace: self.namespace(for: namespace))
    }

    /// The `k` nearest passages, best first. Without a namespace every collection is searched, at
    /// most `PineconeLimits.maxQueries` at once, and the matches merged by score.
    public func query(_ query: [Float], k: Int, namespace: String?, documentID: Int64?) async throws -> [VectorMatch] {
        guard k > 0 else { return [] }
        let topK = min(k, PineconeLimits.maxTopK)
        let filter = documentID.map(Self.filter(documentID:))
        let names = if let namespace { [namespace] } else { try await collections() }
        var matches: [VectorMatch] = []
        for start in stride(from: 0, to: names.count, by: PineconeLimits.maxQueries) {
            let group = names[start..<min(names.count, start + PineconeLimits.maxQueries)]
            try await withThrowingTaskGroup(of: [VectorMatch].self) { tasks in
                for name in group {
                    tasks.addTask { [index] in
                        let result = try await index.query(vector: query, topK: topK, namespace: self.namespace(for: name), filter: filter)
                        return Self.matches(result)
                    }
                }
                for try await found in tasks { matches += found }
            }
        }
        matches.sort { $0.score != $1.score ? $0.score > $1.score : $0.id < $1.id }
        return Array(matches.prefix(k))
    }

    /// `{"document_id": {"$eq": N}}`.
    static func filter(documentID: Int64) -> JSONValue {
        .object([documentKey: .object(["$eq": .integer(documentID)])])
    }

    /// Matches whose ids are passage ids (vectors written by something else are skipped).
    static func matches(_ result: PineconeQueryResult) -> [VectorMatch] {
        result.matches.compactMap { match in
            guard let id = Int64(match.id) else { return nil }
            return VectorMatch(id: id, score: match.score ?? 0)
        }
    }
}
