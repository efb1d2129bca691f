import Foundation
public import Knowledge
import Logging
import PostgresNIO
import SibylCore
import Synchronization
import VectorIndex

extension PostgresKnowledgeBase {
    public func recordFailure(path: String, error: String, in collectionID: Int64) async throws {
        try await database.reachable {
            try await database.client.query("""
                INSERT INTO kb_failure (collection_id, path, error, failed_at)
                SELECT id, \(path), \(error), \(Date().timeIntervalSince1970) FROM kb_collection WHERE id = \(collectionID) AND owner = \(owner)
                ON CONFLICT (collection_id, path) DO UPDATE SET error = excluded.error, failed_at = excluded.failed_at
                """, logger: logger)
        }
    }

    public func failures(in collectionID: Int64?) async throws -> [IngestFailure] {
        try await database.reachable {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(owner)
            var sql = "SELECT f.collection_id, f.path, f.error, f.failed_at FROM kb_failure f JOIN kb_collection c ON c.id = f.collection_id WHERE c.owner = $1"
            if let collectionID {
                bindings.append(collectionID)
                sql += " AND f.collection_id = $2"
            }
            sql += " ORDER BY f.failed_at DESC"
            var failures: [IngestFailure] = []
            for try await (collection, path, error, failed) in try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).decode((Int64, String, String, Double).self) {
                failures.append(IngestFailure(collectionID: collection, path: path, error: error, failedAt: Date(timeIntervalSince1970: failed)))
            }
            return failures
        }
    }
}
