import Foundation
import GRDB
import SibylCore
import VectorIndex

/// The knowledge base on disk: collections, documents, chunks with their vectors, and a BM25 index.
///
/// SQLite in WAL mode through GRDB. A document and all its chunks are written in one transaction,
/// so a process killed mid-ingest leaves either the complete document or none of it.
public final class KnowledgeStore: KnowledgeBase {
    let database: any DatabaseWriter

    /// Opens (creating if needed) the knowledge base at `path`.
    public init(path: String) throws {
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        database = try DatabasePool(path: path, configuration: configuration)
        try KnowledgeSchema.migrator.migrate(database)
    }

    private init(writer: any DatabaseWriter) throws {
        database = writer
        try KnowledgeSchema.migrator.migrate(database)
    }

    /// A knowledge base in memory, for tests.
    public static func inMemory() throws -> KnowledgeStore {
        var configuration = Configuration()
        configuration.foreignKeysEnabled = true
        return try KnowledgeStore(writer: DatabaseQueue(configuration: configuration))
    }

    /// Vectors live in this file and are searched in memory, exactly or with HNSW by collection size.
    public func vectorStore(policy: IndexPolicy) -> any VectorStore {
        EmbeddedVectorStore(store: self, policy: policy)
    }

    /// A number that changes whenever documents or their vectors change, in any process.
    public func revision() throws -> Int64 {
        try database.read { db in try Int64.fetchOne(db, sql: "SELECT value FROM revision WHERE id = 1") ?? 0 }
    }

    // MARK: Collections

    /// The collection with this name, created when `create` is set.
    public func collection(named name: String, create: Bool = false) throws -> KnowledgeCollection? {
        try database.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM collection WHERE name = ?", arguments: [name]) {
                return Self.collection(row)
            }
            guard create else { return nil }
            try db.execute(sql: "INSERT INTO collection (name, created_at) VALUES (?, ?)", arguments: [name, Date().timeIntervalSince1970])
            return KnowledgeCollection(id: db.lastInsertedRowID, name: name, embeddingModel: nil, dimension: nil, createdAt: Date())
        }
    }

    /// All collections, by name.
    public func collections() throws -> [KnowledgeCollection] {
        try database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM collection ORDER BY name").map(Self.collection)
        }
    }

    /// Records the embedding model a collection's vectors come from.
    public func setEmbedding(model: String, dimension: Int, for collectionID: Int64) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE collection SET embedding_model = ?, dimension = ? WHERE id = ?", arguments: [model, dimension, collectionID])
        }
    }

    /// Deletes a collection and everything in it.
    public func deleteCollection(_ id: Int64) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM collection WHERE id = ?", arguments: [id]) }
    }

    // MARK: Documents

    /// The document stored for a path in a collection.
    public func document(path: String, in collectionID: Int64) throws -> StoredDocument? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM document WHERE collection_id = ? AND path = ?", arguments: [collectionID, path]).map(Self.document)
        }
    }

    /// A document stored under another path with the same content.
    public func document(contentHash: String, in collectionID: Int64) throws -> StoredDocument? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM document WHERE collection_id = ? AND content_hash = ? LIMIT 1", arguments: [collectionID, contentHash]).map(Self.document)
        }
    }

    public func document(id: Int64) throws -> StoredDocument? {
        try database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM document WHERE id = ?", arguments: [id]).map(Self.document)
        }
    }

    /// Documents, newest first; all collections when none is given.
    public func documents(in collectionID: Int64? = nil) throws -> [StoredDocument] {
        try database.read { db in
            if let collectionID {
                return try Row.fetchAll(db, sql: "SELECT * FROM document WHERE collection_id = ? ORDER BY added_at DESC", arguments: [collectionID]).map(Self.document)
            }
            return try Row.fetchAll(db, sql: "SELECT * FROM document ORDER BY added_at DESC").map(Self.document)
        }
    }

    /// Writes a document with its chunks and vectors in one transaction, replacing `replacing` (the
    /// older version of the same file) in the same transaction.
    @discardableResult
    public func save(_ draft: DocumentDraft, chunks: [ChunkDraft], embeddings: [[Float]], replacing: Int64?) throws -> StoredDocument {
        precondition(chunks.count == embeddings.count, "one vector per chunk")
        return try database.write { db in
            if let replacing { try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [replacing]) }
            let warnings = draft.warnings.isEmpty ? nil : draft.warnings.joined(separator: "\n")
            try db.execute(sql: """
                INSERT INTO document (collection_id, path, title, format, content_hash, byte_count, page_count, token_count,
                    chunk_count, ocr_confidence, warnings, extract_ms, chunk_ms, embed_ms, index_ms, added_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """, arguments: [
                    draft.collectionID, draft.path, draft.title, draft.format.rawValue, draft.contentHash, draft.byteCount,
                    draft.pageCount, chunks.reduce(0) { $0 + $1.tokenCount }, chunks.count, draft.ocrConfidence, warnings,
                    draft.timings.extract.milliseconds, draft.timings.chunk.milliseconds, draft.timings.embed.milliseconds,
                    draft.timings.index.milliseconds, (draft.addedAt ?? Date()).timeIntervalSince1970,
                ])
            let documentID = db.lastInsertedRowID
            let insert = try db.makeStatement(sql: """
                INSERT INTO chunk (document_id, ordinal, text, token_count, page, heading_path, start_offset, end_offset, embedding)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for (index, chunk) in chunks.enumerated() {
                try insert.execute(arguments: [
                    documentID, index, chunk.text, chunk.tokenCount, chunk.page, Self.encode(path: chunk.headingPath),
                    chunk.startOffset, chunk.endOffset, VectorCoding.data(embeddings[index]),
                ])
            }
            try db.execute(sql: "DELETE FROM failure WHERE collection_id = ? AND path = ?", arguments: [draft.collectionID, draft.path])
            return try Row.fetchOne(db, sql: "SELECT * FROM document WHERE id = ?", arguments: [documentID]).map(Self.document)!
        }
    }

    /// Records how long writing a document took (known only once it is written).
    public func setIndexTime(_ duration: Duration, for documentID: Int64) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE document SET index_ms = ? WHERE id = ?", arguments: [duration.milliseconds, documentID])
        }
    }

    /// Replaces a document's vectors (after a change of embedding model), in one transaction.
    public func replaceEmbeddings(_ vectors: [(chunkID: Int64, vector: [Float])]) throws {
        try database.write { db in
            let update = try db.makeStatement(sql: "UPDATE chunk SET embedding = ? WHERE id = ?")
            for (chunkID, vector) in vectors {
                try update.execute(arguments: [VectorCoding.data(vector), chunkID])
            }
        }
    }

    /// Removes a document and everything it produced.
    public func removeDocument(_ id: Int64) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM document WHERE id = ?", arguments: [id]) }
    }

    // MARK: Failures

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

    // MARK: Chunks

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

    // MARK: Saved index

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

    // MARK: Rows

    static let chunkColumns = "id, document_id, ordinal, text, token_count, page, heading_path, start_offset, end_offset"

    static func collection(_ row: Row) -> KnowledgeCollection {
        KnowledgeCollection(
            id: row["id"], name: row["name"], embeddingModel: row["embedding_model"], dimension: row["dimension"],
            createdAt: Date(timeIntervalSince1970: row["created_at"])
        )
    }

    static func document(_ row: Row) -> StoredDocument {
        let warnings: String? = row["warnings"]
        return StoredDocument(
            id: row["id"], collectionID: row["collection_id"], path: row["path"], title: row["title"],
            format: ExtractedDocument.Format(rawValue: row["format"]) ?? .text, contentHash: row["content_hash"],
            byteCount: row["byte_count"], pageCount: row["page_count"], tokenCount: row["token_count"], chunkCount: row["chunk_count"],
            ocrConfidence: row["ocr_confidence"], warnings: warnings.map { $0.components(separatedBy: "\n") } ?? [],
            timings: PhaseTimings(
                extract: .milliseconds(row["extract_ms"] as Int), chunk: .milliseconds(row["chunk_ms"] as Int),
                embed: .milliseconds(row["embed_ms"] as Int), index: .milliseconds(row["index_ms"] as Int)
            ),
            addedAt: Date(timeIntervalSince1970: row["added_at"])
        )
    }

    static func chunk(_ row: Row) -> StoredChunk {
        StoredChunk(
            id: row["id"], documentID: row["document_id"], ordinal: row["ordinal"], text: row["text"], tokenCount: row["token_count"],
            page: row["page"], headingPath: decode(path: row["heading_path"]), startOffset: row["start_offset"], endOffset: row["end_offset"]
        )
    }

    /// Heading paths are stored joined with U+001F (unit separator), which never appears in headings.
    public static func encode(path: [String]) -> String { path.joined(separator: "\u{1F}") }
    public static func decode(path: String) -> [String] { path.isEmpty ? [] : path.components(separatedBy: "\u{1F}") }
}

/// A chunk's vector with the ids retrieval filters on.
public struct StoredVector: Sendable {
    public var chunkID: Int64
    public var documentID: Int64
    public var collectionID: Int64
    public var vector: [Float]
}

/// An approximate index saved with the collection.
public struct SavedIndex: Sendable {
    public var kind: String
    public var chunkCount: Int
    public var maxChunkID: Int64
    public var data: Data
}

/// What to write for a new document (the store fills in counts and the id).
public struct DocumentDraft: Sendable {
    public var collectionID: Int64
    public var path: String
    public var title: String?
    public var format: ExtractedDocument.Format
    public var contentHash: String
    public var byteCount: Int64
    public var pageCount: Int?
    public var ocrConfidence: Double?
    public var warnings: [String]
    public var timings: PhaseTimings
    /// When it was added; now when nil (a copy keeps the original's).
    public var addedAt: Date?

    public init(
        collectionID: Int64, path: String, title: String?, format: ExtractedDocument.Format, contentHash: String, byteCount: Int64,
        pageCount: Int?, ocrConfidence: Double?, warnings: [String], timings: PhaseTimings, addedAt: Date? = nil
    ) {
        self.collectionID = collectionID
        self.path = path
        self.title = title
        self.format = format
        self.contentHash = contentHash
        self.byteCount = byteCount
        self.pageCount = pageCount
        self.ocrConfidence = ocrConfidence
        self.warnings = warnings
        self.timings = timings
        self.addedAt = addedAt
    }
}

/// Float vectors as little-endian Float32 BLOBs.
enum VectorCoding {
    static func data(_ vector: [Float]) -> Data {
        vector.withUnsafeBufferPointer { Data(buffer: $0) }
    }

    static func floats(_ data: Data) -> [Float] {
        // Copied rather than reinterpreted: a BLOB's bytes carry no alignment guarantee.
        var vector = [Float](repeating: 0, count: data.count / MemoryLayout<Float>.size)
        vector.withUnsafeMutableBytes { _ = data.copyBytes(to: $0) }
        return vector
    }
}

/// The words BM25 looks for in a question: a passage matches when it holds every required word
/// and at least one of the others. Both back ends search for the same words: SQLite as an FTS5
/// expression (`FTSQuery.match`), PostgreSQL in SQL over the passages' terms.
public struct LexicalQuery: Sendable, Equatable {
    /// The words of the names in the question (`math.isclose`), sorted.
    public var required: [String]
    /// The question's content words, sorted.
    public var anyOf: [String]

    /// Nil when the question has no words at all.
    public init?(_ question: String) {
        let chosen = FTSQuery.chosenWords(of: question)
        guard !chosen.isEmpty else { return nil }
        anyOf = chosen
        required = FTSQuery.requiredWords(in: question)
    }

    /// The terms BM25 scores, as passages' words are indexed (stemmed), in the order FTS5 scores
    /// its phrases: the required ones, then the others (a word in both counts twice, as in FTS5).
    public var scoredTerms: [String] { requiredTerms + anyTerms }
    public var requiredTerms: [String] { required.flatMap(LexicalTokenizer.tokens) }
    public var anyTerms: [String] { anyOf.flatMap(LexicalTokenizer.tokens) }
}

/// Turns a question into an FTS5 query: every content word as a quoted term, any of them may match.
///
/// Function words ("how", "do", "the" …) are dropped: in a question they match nearly every
/// passage and only add noise to BM25. If nothing else is left, they are kept.
enum FTSQuery {
    static let stopwords: Set<String> = [
        "a", "about", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "did", "do", "does", "for", "from",
        "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my", "of", "on", "or", "should", "so",
        "that", "the", "their", "them", "there", "these", "they", "this", "to", "was", "we", "were", "what", "when", "where",
        "which", "who", "why", "will", "with", "would", "you", "your",
    ]

    /// The FTS5 expression for a query: any of its content words; when it names something
    /// (`math.isclose`, `lru_cache`, `NormalDist`, `violet-harbor-42`), passages must hold every
    /// part of the names. Measured on Python's library reference: "In which version of Python was
    /// math.isclose added?" had ranked passages full of "version" and "added" above isclose's own.
    static func match(for query: String) -> String? {
        guard let words = LexicalQuery(query) else { return nil }
        let any = words.anyOf.map { "\"\($0)\"" }.joined(separator: " OR ")
        guard !words.required.isEmpty else { return any }
        return "(" + words.required.map { "\"\($0)\"" }.joined(separator: " AND ") + ") AND (" + any + ")"
    }

    /// A query's content words (its function words when it has nothing else), sorted, once each.
    static func chosenWords(of query: String) -> [String] {
        let terms = words(of: query)
        let content = terms.filter { !stopwords.contains($0) }
        return Array(Set(content.isEmpty ? terms : content)).sorted()
    }

    /// The words of the names in a query, which a matching passage must hold; sorted.
    static func requiredWords(in query: String) -> [String] {
        Array(Set(query.split(whereSeparator: \.isWhitespace).filter(isName).flatMap(words))).sorted()
    }

    private static func words<S: StringProtocol>(of text: S) -> [String] {
        text.lowercased()
            .split { !$0.isLetter && !$0.isNumber }
            .map(String.init)
            .filter { $0.count > 1 || $0.first?.isNumber == true }
    }

    /// A word that names something: letters with a dot or underscore inside, with digits, or in
    /// camel case (a lower-case letter followed by a capital). Plain words, numbers and acronyms are not.
    static func isName(_ raw: Substring) -> Bool {
        let word = raw.trimmingCharacters(in: .punctuationCharacters.union(.symbols))
        guard word.contains(where: \.isLetter) else { return false }
        let inner = word.dropFirst().dropLast()
        // "e.g" and "i.e" are abbreviations, not names.
        let longestPart = word.split { !$0.isLetter && !$0.isNumber }.map(\.count).max() ?? 0
        if (inner.contains(".") && longestPart >= 3) || inner.contains("_") || word.contains(where: \.isNumber) { return true }
        return zip(word, word.dropFirst()).contains { $0.isLowercase && $1.isUppercase }
    }
}
