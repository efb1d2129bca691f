public import Foundation
import Logging
import PostgresNIO
public import SibylCore

/// A knowledge base's vectors in pgvector: cosine distance over an HNSW index, collections as
/// namespaces. An HNSW index needs a fixed dimension, so each dimension has a table of its own
/// (`sibyl_vectors_384` for MiniLM), made on first use under the migration lock.
public final class PgVectorStore: VectorStore {
    public let database: PostgresDatabase
    public let dimension: Int
    /// HNSW's candidate list at query time: larger finds more of the true neighbours, slower
    /// (the database's `searchEF` when nil; a different value costs a statement per query).
    public let efSearch: Int?
    /// Rows sent in one statement.
    static let batchSize = 500

    public init(database: PostgresDatabase, dimension: Int, efSearch: Int? = nil) throws {
        guard (1...16_000).contains(dimension) else { throw VectorStoreError.badDimension(dimension) }
        self.database = database
        self.dimension = dimension
        self.efSearch = efSearch
    }

    var table: String { "sibyl_vectors_\(dimension)" }

    /// Makes the table and, with `index`, its HNSW index if they are missing (safe when several
    /// instances do it at once). A bulk load is faster without the index: load, then `buildIndex()`.
    public func prepare(index: Bool = true) async throws {
        try await database.underMigrationLock { connection, logger in
            _ = try await connection.query("CREATE EXTENSION IF NOT EXISTS vector", logger: logger)
            _ = try await connection.query(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(table) (
                    namespace text NOT NULL,
                    id bigint NOT NULL,
                    document_id bigint NOT NULL,
                    embedding vector(\(dimension)) NOT NULL,
                    PRIMARY KEY (namespace, id)
                )
                """), logger: logger)
            _ = try await connection.query(PostgresQuery(unsafeSQL: "CREATE INDEX IF NOT EXISTS \(table)_document ON \(table) (namespace, document_id)"), logger: logger)
        }
        if index { try await buildIndex() }
    }

    /// Builds the HNSW index (cosine, m 16, ef_construction 64) unless it exists.
    public func buildIndex(memory: String = "512MB") async throws {
        try await database.reachable {
            try await database.client.withConnection { connection in
                _ = try await connection.query(PostgresQuery(unsafeSQL: "SET maintenance_work_mem = '\(memory)'"), logger: database.logger)
                _ = try await connection.query(PostgresQuery(unsafeSQL: """
                    CREATE INDEX IF NOT EXISTS \(table)_hnsw ON \(table) USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)
                    """), logger: database.logger)
                // Fresh statistics, or the planner may sort the whole table instead of walking the
                // graph; and the loaded rows vacuumed now, not by autovacuum under the first searches.
                _ = try await connection.query(PostgresQuery(unsafeSQL: "VACUUM (ANALYZE) \(table)"), logger: database.logger)
            }
        }
    }

    public func upsert(_ records: [VectorRecord], namespace: String) async throws {
        for record in records where record.vector.count != dimension {
            throw VectorStoreError.wrongLength(id: record.id, got: record.vector.count, expected: dimension)
        }
        try await database.reachable {
            for start in stride(from: 0, to: records.count, by: Self.batchSize) {
                let batch = records[start..<min(start + Self.batchSize, records.count)]
                let ids = batch.map(\.id), documents = batch.map(\.documentID), vectors = batch.map { Self.literal($0.vector) }
                let sql = "INSERT INTO \(table) (namespace, id, document_id, embedding) SELECT $1, id, document, vector::vector FROM unnest($2::bigint[], $3::bigint[], $4::text[]) AS rows(id, document, vector) ON CONFLICT (namespace, id) DO UPDATE SET document_id = excluded.document_id, embedding = excluded.embedding"
                var bindings = PostgresBindings(capacity: 4)
                bindings.append(namespace)
                bindings.append(ids)
                bindings.append(documents)
                bindings.append(vectors)
                _ = try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: database.logger)
            }
        }
    }

    public func remove(ids: [Int64], namespace: String) async throws {
        try await database.reachable {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(namespace)
            bindings.append(ids)
            _ = try await database.client.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE namespace = $1 AND id = ANY($2::bigint[])", binds: bindings), logger: database.logger)
        }
    }

    /// Removes a document's vectors.
    public func remove(documentID: Int64, namespace: String) async throws {
        try await database.reachable {
            _ = try await database.client.query("DELETE FROM \(unescaped: table) WHERE namespace = \(namespace) AND document_id = \(documentID)", logger: database.logger)
        }
    }

    public func query(_ query: [Float], k: Int, namespace: String?, documentID: Int64?) async throws -> [VectorMatch] {
        guard query.count == dimension else { throw VectorStoreError.wrongLength(id: nil, got: query.count, expected: dimension) }
        var filters: [(column: String, value: any PostgresEncodable & Sendable)] = []
        if let namespace { filters.append(("namespace", namespace)) }
        if let documentID { filters.append(("document_id", documentID)) }
        return try await database.nearest(to: query, k: k, in: table, idColumn: "id", filters: filters, ef: efSearch)
    }

    /// pgvector's text form of a vector: `[0.1,-0.2,…]`.
    static func literal(_ vector: [Float]) -> String {
        "[" + vector.map { $0.isFinite ? "\($0)" : "0" }.joined(separator: ",") + "]"
    }
}

extension PostgresDatabase {
    /// The `k` rows of a vector table nearest to `query` by cosine, best first, among those whose
    /// `filters` columns hold the values given: an HNSW walk with `ef` candidates (the
    /// connection's `searchEF` when nil; the connection goes back to the pool with it).
    func nearest(
        to query: [Float], k: Int, in table: String, idColumn: String,
        filters: [(column: String, value: any PostgresEncodable & Sendable)], ef: Int?
    ) async throws -> [VectorMatch] {
        guard k > 0 else { return [] }
        return try await reachable {
            try await client.withConnection { connection in
                let ef = max(ef ?? searchEF, k)
                let changesEF = ef != searchEF
                if changesEF {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: "SET hnsw.ef_search = \(ef)"), logger: logger)
                }
                var bindings = PostgresBindings(capacity: filters.count + 1)
                bindings.append(PgVectorStore.literal(query))
                var conditions: [String] = []
                for filter in filters {
                    try bindings.append(filter.value)
                    conditions.append("\(filter.column) = $\(bindings.count)")
                }
                let filter = conditions.isEmpty ? "" : "WHERE " + conditions.joined(separator: " AND ")
                // The limit is written out: a plan made without it may not walk the index.
                let sql = "SELECT \(idColumn), 1 - (embedding <=> $1::vector) FROM \(table) \(filter) ORDER BY embedding <=> $1::vector LIMIT \(k)"
                var matches: [VectorMatch] = []
                var failure: (any Error)?
                do {
                    for try await (id, score) in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).decode((Int64, Double).self) {
                        matches.append(VectorMatch(id: id, score: score))
                    }
                } catch {
                    failure = error
                }
                if changesEF {
                    _ = try? await connection.query(PostgresQuery(unsafeSQL: "SET hnsw.ef_search = \(searchEF)"), logger: logger)
                }
                if let failure { throw failure }
                return matches
            }
        }
    }
}

/// A vector the store cannot take.
public enum VectorStoreError: Error, Sendable, Equatable, LocalizedError {
    case badDimension(Int)
    case wrongLength(id: Int64?, got: Int, expected: Int)

    public var errorDescription: String? {
        switch self {
        case .badDimension(let dimension): "A vector store needs a dimension between 1 and 16000, not \(dimension)."
        case .wrongLength(let id, let got, let expected):
            "\(id.map { "The vector of passage \($0)" } ?? "The query vector") has \(got) numbers; this store holds \(expected)-dimensional vectors."
        }
    }
}
