import Foundation
public import Knowledge
import Logging
import PostgresNIO
import SibylCore
import Synchronization
import VectorIndex

/// One owner's knowledge base in PostgreSQL: what `KnowledgeStore` keeps in a SQLite file, in
/// tables every `sibyl serve` instance on the database shares (see `knowledgeSchema`).
///
/// A document is written in one transaction with its passages, their words and their vectors, so
/// another instance finds it whole, searchable at once, or not at all. BM25 is computed in SQL
/// from the words `LexicalTokenizer` made, with the statistics of this owner's passages (as FTS5
/// keeps them per file), so scores match the embedded store's; vectors are searched by pgvector.
public final class PostgresKnowledgeBase: KnowledgeBase {
    public let database: PostgresDatabase
    /// Whose knowledge base: "" for the local user, `users/ID` for an account.
    public let owner: String
    /// Dimensions whose vector table is known to exist.
    let preparedDimensions = Mutex<Set<Int>>([])

    /// The knowledge base of `owner` in a database `migrate()` has brought up to date.
    public init(database: PostgresDatabase, owner: String = "") {
        self.database = database
        self.owner = owner
    }

    var logger: Logger { database.logger }

    /// Whose knowledge bases the database holds ("" is the local user's).
    public static func owners(in database: PostgresDatabase) async throws -> [String] {
        try await database.reachable {
            var owners: [String] = []
            for try await owner in try await database.client.query("SELECT DISTINCT owner FROM kb_collection ORDER BY owner", logger: database.logger).decode(String.self) {
                owners.append(owner)
            }
            return owners
        }
    }

    // MARK: Collections

    public func collection(named name: String, create: Bool) async throws -> KnowledgeCollection? {
        try await database.reachable {
            if let found = try await collections(where: "owner = $1 AND lower(name) = lower($2)", [owner, name]).first { return found }
            guard create else { return nil }
            // Another instance may make the same collection at this moment: then its row is the one.
            var bindings = PostgresBindings(capacity: 3)
            bindings.append(owner)
            bindings.append(name)
            bindings.append(Date().timeIntervalSince1970)
            try await database.client.query(PostgresQuery(unsafeSQL: """
                INSERT INTO kb_collection (owner, name, created_at) VALUES ($1, $2, $3) ON CONFLICT (owner, lower(name)) DO NOTHING
                """, binds: bindings), logger: logger)
            return try await collections(where: "owner = $1 AND lower(name) = lower($2)", [owner, name]).first
        }
    }

    public func collections() async throws -> [KnowledgeCollection] {
        try await database.reachable { try await collections(where: "owner = $1", [owner]) }
    }

    func collections(where condition: String, _ values: [String]) async throws -> [KnowledgeCollection] {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { bindings.append(value) }
        let rows = try await database.client.query(PostgresQuery(unsafeSQL: """
            SELECT id, name, embedding_model, dimension, created_at FROM kb_collection WHERE \(condition) ORDER BY lower(name)
            """, binds: bindings), logger: logger)
        var found: [KnowledgeCollection] = []
        for try await (id, name, model, dimension, created) in rows.decode((Int64, String, String?, Int?, Double).self) {
            found.append(KnowledgeCollection(id: id, name: name, embeddingModel: model, dimension: dimension, createdAt: Date(timeIntervalSince1970: created)))
        }
        return found
    }

    public func setEmbedding(model: String, dimension: Int, for collectionID: Int64) async throws {
        try await prepareVectors(dimension: dimension)
        try await database.reachable {
            try await database.client.query("UPDATE kb_collection SET embedding_model = \(model), dimension = \(dimension) WHERE id = \(collectionID) AND owner = \(owner)", logger: logger)
        }
    }

    public func deleteCollection(_ id: Int64) async throws {
        try await writing {
            try await database.client.query("DELETE FROM kb_collection WHERE id = \(id) AND owner = \(owner)", logger: logger)
        }
    }

    public func renameCollection(_ id: Int64, to name: String) async throws {
        try await writing {
            guard try await collections(where: "owner = $1 AND id = $2::bigint", [owner, String(id)]).first != nil else {
                throw KnowledgeError.unknownCollection(String(id))
            }
            if try await collections(where: "owner = $1 AND lower(name) = lower($2) AND id != $3::bigint", [owner, name, String(id)]).first != nil {
                throw KnowledgeError.collectionExists(name)
            }
            do {
                try await database.client.query("UPDATE kb_collection SET name = \(name) WHERE id = \(id) AND owner = \(owner)", logger: logger)
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
                // Another instance gave that name to a collection at this moment.
                throw KnowledgeError.collectionExists(name)
            }
        }
    }

}

/// A passage's words as BM25 counts them: each distinct term with how often it occurs, and the
/// number of tokens (|D|).
struct LexicalWords {
    var terms: [String]
    var frequencies: [Int]
    var length: Int

    init(_ text: String) {
        let counted = LexicalTokenizer.termFrequencies(text)
        let sorted = counted.frequencies.sorted { $0.key < $1.key }
        terms = sorted.map(\.key)
        frequencies = sorted.map(\.value)
        length = counted.length
    }
}

/// The knowledge base's vectors in pgvector, searched for one owner: all their collections, one
/// (the namespace is its name), or one document. Vectors are written with their passages (in
/// `save`), so upserts and removals here have nothing left to do.
struct PostgresKnowledgeVectors: VectorStore {
    let base: PostgresKnowledgeBase

    func upsert(_ records: [VectorRecord], namespace: String) async throws {}

    func remove(ids: [Int64], namespace: String) async throws {}

    func query(_ query: [Float], k: Int, namespace: String?, documentID: Int64?) async throws -> [VectorMatch] {
        guard k > 0, !query.isEmpty else { return [] }
        var filters: [(column: String, value: any PostgresEncodable & Sendable)] = [("owner", base.owner)]
        if let namespace {
            guard let collection = try await base.collection(named: namespace) else { throw KnowledgeError.unknownCollection(namespace) }
            // A collection of vectors of another size holds nothing this question can match.
            guard collection.dimension == nil || collection.dimension == query.count else { return [] }
            filters.append(("collection_id", collection.id))
        }
        if let documentID { filters.append(("document_id", documentID)) }
        guard try await base.hasVectors(dimension: query.count) else { return [] }
        return try await base.database.nearest(
            to: query, k: k, in: PostgresKnowledgeBase.vectorTable(query.count), idColumn: "passage_id", filters: filters, ef: nil
        )
    }
}
