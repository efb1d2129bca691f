import Foundation
import GRDB
import SibylCore
import VectorIndex

extension KnowledgeStore {
    public func recordFailure(path: String, error: String, in collectionID: Int64) throws {
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO failure (collection_id, path, error, failed_at) VALUES (?, ?, ?, ?)",
                           arguments: [collectionID, path, error, Date().timeIntervalSince1970])
        }
    }

    public func failures(in collectionID: Int64? = nil) throws -> [IngestFailure] {
        try database.read { db in
            let rows = collectionID.map { try? Row.fetchAll(db, sql: "SELECT * FROM failure WHERE collection_id = ? ORDER BY failed_at DESC", arguments: [$0]) }
                ?? (try? Row.fetchAll(db, sql: "SELECT * FROM failure ORDER BY failed_at DESC"))
            return (rows ?? []).map { row in
                IngestFailure(collectionID: row["collection_id"], path: row["path"], error: row["error"], failedAt: Date(timeIntervalSince1970: row["failed_at"]))
            }
        }
    }
}
