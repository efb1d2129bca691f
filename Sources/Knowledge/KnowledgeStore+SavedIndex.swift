import Foundation
import GRDB
import SibylCore
import VectorIndex

extension KnowledgeStore {
    public func savedIndex(for collectionID: Int64) throws -> SavedIndex? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM saved_index WHERE collection_id = ?", arguments: [collectionID]).map { row in
                SavedIndex(kind: row["kind"], chunkCount: row["chunk_count"], maxChunkID: row["max_chunk_id"], data: row["data"])
            }
        }
    }

    public func saveIndex(_ index: SavedIndex, for collectionID: Int64) throws {
        try database.write { db in
            try db.execute(sql: "INSERT OR REPLACE INTO saved_index (collection_id, kind, chunk_count, max_chunk_id, data) VALUES (?, ?, ?, ?, ?)",
                           arguments: [collectionID, index.kind, index.chunkCount, index.maxChunkID, index.data])
        }
    }
}
