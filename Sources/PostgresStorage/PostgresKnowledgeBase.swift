import Foundation
import Knowledge
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
    private let preparedDimensions = Mutex<Set<Int>>([])

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

    private func collections(where condition: String, _ values: [String]) async throws -> [KnowledgeCollection] {
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

    // MARK: Documents

    /// The document columns, qualified, in the order `document(from:)` reads them.
    static let documentColumns = """
        d.id, d.collection_id, d.path, d.title, d.format, d.content_hash, d.byte_count, d.page_count, d.token_count, d.chunk_count,
        d.ocr_confidence, d.warnings, d.extract_ms, d.chunk_ms, d.embed_ms, d.index_ms, d.added_at
        """

    public func document(path: String, in collectionID: Int64) async throws -> StoredDocument? {
        try await documents(where: "d.collection_id = $2 AND d.path = $3", collectionID, path).first
    }

    public func document(contentHash: String, in collectionID: Int64) async throws -> StoredDocument? {
        try await documents(where: "d.collection_id = $2 AND d.content_hash = $3", collectionID, contentHash, limit: 1).first
    }

    public func document(id: Int64) async throws -> StoredDocument? {
        try await documents(where: "d.id = $2", id).first
    }

    public func documents(in collectionID: Int64?) async throws -> [StoredDocument] {
        if let collectionID { return try await documents(where: "d.collection_id = $2", collectionID) }
        return try await documents(where: "TRUE")
    }

    /// Documents of this owner matching `condition` ($1 is the owner; the values are $2…), newest first.
    private func documents(where condition: String, _ values: any PostgresEncodable & Sendable..., limit: Int? = nil) async throws -> [StoredDocument] {
        try await database.reachable {
            var bindings = PostgresBindings(capacity: values.count + 1)
            bindings.append(owner)
            for value in values { try bindings.append(value) }
            let sql = """
                SELECT \(Self.documentColumns) FROM kb_document d JOIN kb_collection c ON c.id = d.collection_id
                WHERE c.owner = $1 AND \(condition) ORDER BY d.added_at DESC, d.id DESC\(limit.map { " LIMIT \($0)" } ?? "")
                """
            return try await Self.documents(try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger))
        }
    }

    static func documents(_ rows: PostgresRowSequence) async throws -> [StoredDocument] {
        var documents: [StoredDocument] = []
        for try await row in rows { documents.append(try document(from: row)) }
        return documents
    }

    static func document(from row: PostgresRow) throws -> StoredDocument {
        let cells = row.makeRandomAccess()
        func cell<T: PostgresDecodable>(_ index: Int, _ type: T.Type = T.self) throws -> T { try cells[index].decode(T.self) }
        let warnings: String? = try cell(11)
        return StoredDocument(
            id: try cell(0), collectionID: try cell(1), path: try cell(2), title: try cell(3),
            format: ExtractedDocument.Format(rawValue: try cell(4, String.self)) ?? .text, contentHash: try cell(5),
            byteCount: try cell(6), pageCount: try cell(7), tokenCount: try cell(8), chunkCount: try cell(9), ocrConfidence: try cell(10),
            warnings: warnings.map { $0.components(separatedBy: "\n") } ?? [],
            timings: PhaseTimings(
                extract: .milliseconds(try cell(12, Int64.self)), chunk: .milliseconds(try cell(13, Int64.self)),
                embed: .milliseconds(try cell(14, Int64.self)), index: .milliseconds(try cell(15, Int64.self))
            ),
            addedAt: Date(timeIntervalSince1970: try cell(16))
        )
    }

    @discardableResult
    public func save(_ draft: DocumentDraft, chunks: [ChunkDraft], embeddings: [[Float]], replacing: Int64?) async throws -> StoredDocument {
        precondition(chunks.count == embeddings.count, "one vector per chunk")
        let dimension = embeddings.first?.count
        if let dimension {
            for (index, vector) in embeddings.enumerated() where vector.count != dimension {
                throw VectorStoreError.wrongLength(id: Int64(index), got: vector.count, expected: dimension)
            }
            try await prepareVectors(dimension: dimension)
        }
        let words = chunks.map { LexicalWords($0.text) }
        return try await writing {
            try await database.client.withTransaction(logger: logger) { connection in
                guard let collection = try await self.owned(collection: draft.collectionID, on: connection) else {
                    throw KnowledgeError.unknownCollection(String(draft.collectionID))
                }
                if let replacing {
                    try await connection.query("DELETE FROM kb_document WHERE id = \(replacing) AND collection_id = \(collection)", logger: self.logger)
                }
                let warnings = draft.warnings.isEmpty ? nil : draft.warnings.joined(separator: "\n")
                let tokenCount = chunks.reduce(0) { $0 + $1.tokenCount }
                let inserted = try await connection.query("""
                    INSERT INTO kb_document (collection_id, path, title, format, content_hash, byte_count, page_count, token_count,
                        chunk_count, ocr_confidence, warnings, extract_ms, chunk_ms, embed_ms, index_ms, added_at)
                    VALUES (\(collection), \(draft.path), \(draft.title), \(draft.format.rawValue), \(draft.contentHash), \(draft.byteCount),
                        \(draft.pageCount), \(tokenCount), \(chunks.count), \(draft.ocrConfidence), \(warnings),
                        \(draft.timings.extract.milliseconds), \(draft.timings.chunk.milliseconds), \(draft.timings.embed.milliseconds),
                        \(draft.timings.index.milliseconds), \((draft.addedAt ?? Date()).timeIntervalSince1970))
                    RETURNING id
                    """, logger: self.logger)
                var documentID: Int64 = 0
                for try await id in inserted.decode(Int64.self) { documentID = id }

                var bindings = PostgresBindings(capacity: 11)
                bindings.append(documentID)
                bindings.append(collection)
                bindings.append(self.owner)
                bindings.append(chunks.indices.map { $0 })
                bindings.append(chunks.map(\.text))
                bindings.append(chunks.map(\.tokenCount))
                bindings.append(chunks.map { $0.page.map(String.init) ?? "" })
                bindings.append(chunks.map { KnowledgeStore.encode(path: $0.headingPath) })
                bindings.append(chunks.map(\.startOffset))
                bindings.append(chunks.map(\.endOffset))
                bindings.append(words.map(\.length))
                let passages = try await connection.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO kb_passage (document_id, collection_id, owner, ordinal, text, token_count, page, heading_path,
                        start_offset, end_offset, lexical_length)
                    SELECT $1, $2, $3, ordinal, text, tokens, nullif(page, '')::integer, heading, first, last, length
                    FROM unnest($4::integer[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::integer[], $10::integer[], $11::integer[])
                        AS passage(ordinal, text, tokens, page, heading, first, last, length)
                    RETURNING id, ordinal
                    """, binds: bindings), logger: self.logger)
                var ids = [Int64](repeating: 0, count: chunks.count)
                for try await (id, ordinal) in passages.decode((Int64, Int).self) { ids[ordinal] = id }

                // The postings: each passage's distinct words with how often they occur.
                var postings = PostgresBindings(capacity: 8)
                postings.append(self.owner)
                postings.append(collection)
                postings.append(documentID)
                postings.append(words.flatMap(\.terms))
                postings.append(zip(ids, words).flatMap { id, word in Array(repeating: id, count: word.terms.count) })
                postings.append(words.flatMap(\.frequencies))
                postings.append(words.flatMap { Array(repeating: $0.length, count: $0.terms.count) })
                try await connection.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO kb_posting (owner, term, passage_id, frequency, length, collection_id, document_id)
                    SELECT $1, term, passage, frequency, length, $2, $3
                    FROM unnest($4::text[], $5::bigint[], $6::integer[], $7::integer[]) AS posting(term, passage, frequency, length)
                    """, binds: postings), logger: self.logger)

                if let dimension {
                    var vectors = PostgresBindings(capacity: 5)
                    vectors.append(self.owner)
                    vectors.append(collection)
                    vectors.append(documentID)
                    vectors.append(ids)
                    vectors.append(embeddings.map(PgVectorStore.literal))
                    try await connection.query(PostgresQuery(unsafeSQL: """
                        INSERT INTO \(Self.vectorTable(dimension)) (passage_id, owner, collection_id, document_id, embedding)
                        SELECT id, $1, $2, $3, vector::vector FROM unnest($4::bigint[], $5::text[]) AS row(id, vector)
                        """, binds: vectors), logger: self.logger)
                }
                try await connection.query("DELETE FROM kb_failure WHERE collection_id = \(collection) AND path = \(draft.path)", logger: self.logger)
                let saved = try await connection.query("SELECT \(unescaped: Self.documentColumns) FROM kb_document d WHERE d.id = \(documentID)", logger: self.logger)
                guard let document = try await Self.documents(saved).first else { throw DatabaseError.refused("the document just written was not found") }
                return document
            }
        }
    }

    /// The collection's id when it is this owner's.
    private func owned(collection id: Int64, on connection: PostgresConnection) async throws -> Int64? {
        for try await found in try await connection.query("SELECT id FROM kb_collection WHERE id = \(id) AND owner = \(owner)", logger: logger).decode(Int64.self) {
            return found
        }
        return nil
    }

    public func setIndexTime(_ duration: Duration, for documentID: Int64) async throws {
        try await database.reachable {
            try await database.client.query("""
                UPDATE kb_document SET index_ms = \(duration.milliseconds) WHERE id = \(documentID)
                    AND collection_id IN (SELECT id FROM kb_collection WHERE owner = \(owner))
                """, logger: logger)
        }
    }

    public func replaceEmbeddings(_ vectors: [(chunkID: Int64, vector: [Float])]) async throws {
        guard let dimension = vectors.first?.vector.count else { return }
        for (id, vector) in vectors where vector.count != dimension {
            throw VectorStoreError.wrongLength(id: id, got: vector.count, expected: dimension)
        }
        try await prepareVectors(dimension: dimension)
        let existing = try await vectorDimensions()
        try await writing {
            try await database.client.withTransaction(logger: logger) { connection in
                let ids = vectors.map(\.chunkID)
                // The model may have changed size: the old vectors go, wherever they were.
                for table in existing.map(Self.vectorTable) {
                    try await connection.query(PostgresQuery(unsafeSQL: "DELETE FROM \(table) WHERE owner = $1 AND passage_id = ANY($2::bigint[])", binds: Self.bindings(self.owner, ids)), logger: self.logger)
                }
                var bindings = PostgresBindings(capacity: 3)
                bindings.append(self.owner)
                bindings.append(ids)
                bindings.append(vectors.map { PgVectorStore.literal($0.vector) })
                try await connection.query(PostgresQuery(unsafeSQL: """
                    INSERT INTO \(Self.vectorTable(dimension)) (passage_id, owner, collection_id, document_id, embedding)
                    SELECT p.id, p.owner, p.collection_id, p.document_id, row.vector::vector
                    FROM unnest($2::bigint[], $3::text[]) AS row(id, vector) JOIN kb_passage p ON p.id = row.id AND p.owner = $1
                    """, binds: bindings), logger: self.logger)
            }
        }
    }

    public func removeDocument(_ id: Int64) async throws {
        try await writing {
            try await database.client.query("""
                DELETE FROM kb_document WHERE id = \(id) AND collection_id IN (SELECT id FROM kb_collection WHERE owner = \(owner))
                """, logger: logger)
        }
    }

    /// Deletes every collection of this owner, with everything in them (the account was removed).
    public func removeEverything() async throws {
        try await writing {
            try await database.client.query("DELETE FROM kb_collection WHERE owner = \(owner)", logger: logger)
        }
    }

    // MARK: Failures

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

    // MARK: Passages

    public func chunks(of documentID: Int64) async throws -> [StoredChunk] {
        try await passages(where: "document_id = $2 ORDER BY ordinal", documentID)
    }

    public func chunk(documentID: Int64, ordinal: Int) async throws -> StoredChunk? {
        try await passages(where: "document_id = $2 AND ordinal = $3", documentID, ordinal).first
    }

    public func chunks(ids: [Int64]) async throws -> [StoredChunk] {
        guard !ids.isEmpty else { return [] }
        return try await passages(where: "id = ANY($2::bigint[])", ids)
    }

    public func vectors(of documentID: Int64) async throws -> [Int64: [Float]] {
        var vectors: [Int64: [Float]] = [:]
        for dimension in try await vectorDimensions() {
            try await database.reachable {
                let rows = try await database.client.query(PostgresQuery(unsafeSQL: """
                    SELECT passage_id, embedding::real[] FROM \(Self.vectorTable(dimension)) WHERE owner = $1 AND document_id = $2
                    """, binds: Self.bindings(owner, documentID)), logger: logger)
                for try await (id, vector) in rows.decode((Int64, [Float]).self) { vectors[id] = vector }
            }
        }
        return vectors
    }

    private func passages(where condition: String, _ values: any PostgresEncodable & Sendable...) async throws -> [StoredChunk] {
        try await database.reachable {
            var bindings = PostgresBindings(capacity: values.count + 1)
            bindings.append(owner)
            for value in values { try bindings.append(value) }
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: """
                SELECT id, document_id, ordinal, text, token_count, page, heading_path, start_offset, end_offset
                FROM kb_passage WHERE owner = $1 AND \(condition)
                """, binds: bindings), logger: logger)
            var chunks: [StoredChunk] = []
            for try await (id, document, ordinal, text, tokens, page, heading, start, end) in rows.decode((Int64, Int64, Int, String, Int, Int?, String, Int, Int).self) {
                chunks.append(StoredChunk(
                    id: id, documentID: document, ordinal: ordinal, text: text, tokenCount: tokens, page: page,
                    headingPath: KnowledgeStore.decode(path: heading), startOffset: start, endOffset: end
                ))
            }
            return chunks
        }
    }

    // MARK: Search

    /// BM25 exactly as FTS5 computes it: per scored term, idf = ln((N − n + 0.5) / (n + 0.5)) (a
    /// small positive number when that is not positive), times f·(k1 + 1) / (f + k1·(1 − b + b·|D| / avgdl)),
    /// with k1 = 1.2, b = 0.75, N and avgdl over this owner's passages, n the passages holding the term.
    public func lexicalSearch(_ query: String, collectionID: Int64?, documentID: Int64?, limit: Int) async throws -> [(chunkID: Int64, score: Double)] {
        guard let words = LexicalQuery(query), limit > 0 else { return [] }
        let any = words.anyTerms, required = words.requiredTerms
        guard !any.isEmpty else { return [] }
        // Each distinct term once, with how many times it is scored (a word both required and
        // asked for counts twice, as in FTS5) and whether it is required or one of the others.
        var terms: [String] = []
        var multiplicity: [String: Double] = [:]
        for term in required + any {
            if multiplicity[term] == nil { terms.append(term) }
            multiplicity[term, default: 0] += 1
        }
        let requiredSet = Set(required), optionalSet = Set(any)
        return try await database.reachable {
            var bindings = PostgresBindings(capacity: 7)
            bindings.append(owner)
            bindings.append(terms)
            bindings.append(terms.map { multiplicity[$0] ?? 1 })
            bindings.append(terms.map { requiredSet.contains($0) })
            bindings.append(terms.map { optionalSet.contains($0) })
            var filters: [String] = []
            if let collectionID {
                bindings.append(collectionID)
                filters.append("AND posting.collection_id = $\(bindings.count)")
            }
            if let documentID {
                bindings.append(documentID)
                filters.append("AND posting.document_id = $\(bindings.count)")
            }
            // A passage counts when it holds every required word and at least one of the others;
            // with no required words, every passage holding any of them does, and the check (which
            // would make PostgreSQL sort all the postings) is left out.
            let condition = requiredSet.isEmpty ? "" : """
                HAVING count(*) FILTER (WHERE scored.required) = \(requiredSet.count) AND bool_or(scored.optional)
                """
            // Each scored term reads its postings from the index alone (once to count the passages
            // holding it, once to score them). Its weight (idf times how often it is scored) is
            // worked out once per term (MATERIALIZED), not once per posting.
            let sql = """
                WITH totals AS (
                    SELECT passages::float8 AS n, tokens::float8 / greatest(passages, 1) AS avgdl FROM kb_lexical_totals WHERE owner = $1
                ), holding AS (
                    SELECT term, count(*)::float8 AS passages FROM kb_posting WHERE owner = $1 AND term = ANY($2::text[]) GROUP BY term
                ), scored AS MATERIALIZED (
                    SELECT query.term, query.required, query.optional,
                        query.multiplicity * CASE WHEN raw.idf > 0 THEN raw.idf ELSE 1e-6::float8 END AS weight
                    FROM unnest($2::text[], $3::float8[], $4::bool[], $5::bool[]) AS query(term, multiplicity, required, optional)
                    CROSS JOIN totals
                    LEFT JOIN holding ON holding.term = query.term
                    CROSS JOIN LATERAL (
                        SELECT ln((totals.n - coalesce(holding.passages, 0) + 0.5::float8) / (coalesce(holding.passages, 0) + 0.5::float8)) AS idf
                    ) AS raw
                )
                SELECT posting.passage_id,
                    sum(scored.weight * posting.frequency::float8 * 2.2::float8
                        / (posting.frequency::float8 + 1.2::float8 * (0.25::float8 + 0.75::float8 * posting.length::float8 / totals.avgdl))) AS score
                FROM scored JOIN kb_posting posting ON posting.owner = $1 AND posting.term = scored.term \(filters.joined(separator: " "))
                CROSS JOIN totals
                GROUP BY posting.passage_id
                \(condition)
                ORDER BY score DESC, posting.passage_id LIMIT \(limit)
                """
            var hits: [(chunkID: Int64, score: Double)] = []
            for try await (id, score) in try await database.client.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger).decode((Int64, Double).self) {
                hits.append((id, score))
            }
            return hits
        }
    }

    public func vectorStore(policy: IndexPolicy) -> any VectorStore {
        PostgresKnowledgeVectors(base: self)
    }

    // MARK: Vectors

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

    private static func createVectorIndex(_ table: String, on connection: PostgresConnection, logger: Logger) async throws {
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
