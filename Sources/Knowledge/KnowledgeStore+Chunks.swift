import Foundation
import GRDB
import SibylCore
import VectorIndex

extension KnowledgeStore {
    /// A document's chunks in order.
    public func chunks(of documentID: Int64) throws -> [StoredChunk] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.chunkColumns) FROM chunk WHERE document_id = ? ORDER BY ordinal", arguments: [documentID]).map(Self.chunk)
        }
    }

    /// The chunk of a document at an ordinal, if there is one.
    public func chunk(documentID: Int64, ordinal: Int) throws -> StoredChunk? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.chunkColumns) FROM chunk WHERE document_id = ? AND ordinal = ?", arguments: [documentID, ordinal]).map(Self.chunk)
        }
    }

    /// Chunks by id (in no particular order).
    public func chunks(ids: [Int64]) throws -> [StoredChunk] {
        guard !ids.isEmpty else { return [] }
        return try database.read { db in
            try Row.fetchAll(db, sql: "SELECT \(Self.chunkColumns) FROM chunk WHERE id IN (\(ids.map { _ in "?" }.joined(separator: ",")))", arguments: StatementArguments(ids)).map(Self.chunk)
        }
    }

    /// Every vector of a collection (or of all), with the ids retrieval filters on.
    public func vectors(in collectionID: Int64? = nil) throws -> [StoredVector] {
        try database.read { db in
            var sql = "SELECT chunk.id, chunk.document_id, document.collection_id, chunk.embedding FROM chunk JOIN document ON document.id = chunk.document_id"
            var arguments = StatementArguments()
            if let collectionID {
                sql += " WHERE document.collection_id = ?"
                arguments = [collectionID]
            }
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                StoredVector(chunkID: row[0], documentID: row[1], collectionID: row[2], vector: VectorCoding.floats(row[3]))
            }
        }
    }

    /// A document's vectors by passage id.
    public func vectors(of documentID: Int64) throws -> [Int64: [Float]] {
        try database.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT id, embedding FROM chunk WHERE document_id = ?", arguments: [documentID])
            return Dictionary(uniqueKeysWithValues: rows.map { ($0[0] as Int64, VectorCoding.floats($0[1])) })
        }
    }

    /// BM25 matches (SQLite FTS5, k1 = 1.2, b = 0.75), best first; scores are positive, higher is better.
    public func lexicalSearch(_ query: String, collectionID: Int64? = nil, documentID: Int64? = nil, limit: Int) throws -> [(chunkID: Int64, score: Double)] {
        guard let match = FTSQuery.match(for: query) else { return [] }
        return try database.read { db in
            var sql = """
                SELECT chunk_fts.rowid, bm25(chunk_fts) AS rank FROM chunk_fts
                JOIN chunk ON chunk.id = chunk_fts.rowid JOIN document ON document.id = chunk.document_id
                WHERE chunk_fts MATCH ?
                """
            var arguments: StatementArguments = [match]
            if let collectionID {
                sql += " AND document.collection_id = ?"
                arguments += [collectionID]
            }
            if let documentID {
                sql += " AND chunk.document_id = ?"
                arguments += [documentID]
            }
            sql += " ORDER BY rank LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in (row[0], -(row[1] as Double)) }
        }
    }
}
