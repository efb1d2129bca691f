import Foundation
import Knowledge
import Logging
import PostgresNIO
import SibylCore
import Synchronization
import VectorIndex

extension PostgresKnowledgeBase {
    static func vectorTable(_ dimension: Int) -> String { "kb_vectors_\(dimension)" }

    /// Makes the vector table of a dimension with its HNSW index (cosine, m 16, ef_construction 64)
    /// unless it exists, under the migration lock so instances doing it at once do not race.
    /// A bulk load is faster without the index (`index: false`): load, then `buildVectorIndex`.
    public func prepareVectors(dimension: Int, index: Bool = true) async throws {
        guard (1...16_000).contains(dimension) else { throw VectorStoreError.badDimension(dimension) }
        if preparedDimensions.withLock({ $0.contains(dimension) }) { return }
        let table = Self.vectorTable(dimension)
        try await database.underMigrationLock { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: """
                CREATE TABLE IF NOT EXISTS \(table) (
                    passage_id bigint PRIMARY KEY REFERENCES kb_passage (id) ON DELETE CASCADE,
                    owner text NOT NULL,
                    collection_id bigint NOT NULL,
                    document_id bigint NOT NULL,
                    embedding vector(\(dimension)) NOT NULL
                )
                """), logger: logger)
            if index { try await Self.createVectorIndex(table, on: connection, logger: logger) }
        }
        preparedDimensions.withLock { _ = $0.insert(dimension) }
    }

    /// Builds the HNSW index of a dimension's vectors after a bulk load (with `memory` to build
    /// in), then vacuums what was loaded: that marks the pages all-visible, so that BM25 reads
    /// postings from their index alone instead of visiting each row (and autovacuum does not do
    /// it later, under the first searches), and refreshes the planner's statistics.
    public func buildVectorIndex(dimension: Int, memory: String = "1GB") async throws {
        let table = Self.vectorTable(dimension)
        try await database.reachable {
            try await database.client.withConnection { connection in
                try await connection.query(PostgresQuery(unsafeSQL: "SET maintenance_work_mem = '\(memory)'"), logger: logger)
                try await Self.createVectorIndex(table, on: connection, logger: logger)
                try await connection.query(PostgresQuery(unsafeSQL: "VACUUM (ANALYZE) \(table), kb_passage, kb_posting"), logger: logger)
            }
        }
    }

    static func createVectorIndex(_ table: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(PostgresQuery(unsafeSQL: """
            CREATE INDEX IF NOT EXISTS \(table)_hnsw ON \(table) USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)
            """), logger: logger)
    }

    /// Whether a vector table of this dimension exists (remembered once it does).
    func hasVectors(dimension: Int) async throws -> Bool {
        if preparedDimensions.withLock({ $0.contains(dimension) }) { return true }
        guard try await vectorDimensions().contains(dimension) else { return false }
        preparedDimensions.withLock { _ = $0.insert(dimension) }
        return true
    }

    /// The dimensions that have a vector table in this database.
    func vectorDimensions() async throws -> [Int] {
        try await database.reachable {
            var dimensions: [Int] = []
            let rows = try await database.client.query("SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'kb_vectors_%'", logger: logger)
            for try await name in rows.decode(String.self) {
                if let dimension = Int(name.dropFirst("kb_vectors_".count)) { dimensions.append(dimension) }
            }
            return dimensions
        }
    }

    /// Runs a write, again when PostgreSQL broke a deadlock or a serialization conflict by
    /// cancelling it (each try is a whole transaction, so nothing half-done remains).
    @discardableResult
    func writing<T>(_ body: () async throws -> T) async throws -> T {
        try await database.retryingConflicts(body)
    }

    static func bindings(_ owner: String, _ value: some PostgresNonThrowingEncodable) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(owner)
        bindings.append(value)
        return bindings
    }
}
