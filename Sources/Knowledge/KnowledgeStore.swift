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
        // Another process (a `sibyl docs add` beside `sibyl serve`) may hold the file for a moment.
        configuration.busyMode = .timeout(10)
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

    /// Gives a collection another name; fails when another collection has it.
    public func renameCollection(_ id: Int64, to name: String) throws {
        try database.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM collection WHERE id = ?", arguments: [id]) == true else {
                throw KnowledgeError.unknownCollection(String(id))
            }
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM collection WHERE name = ? AND id != ?", arguments: [name, id]) == true {
                throw KnowledgeError.collectionExists(name)
            }
            try db.execute(sql: "UPDATE collection SET name = ? WHERE id = ?", arguments: [name, id])
        }
    }

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

    static func words<S: StringProtocol>(of text: S) -> [String] {
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
