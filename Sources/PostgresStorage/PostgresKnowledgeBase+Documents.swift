import Foundation
public import Knowledge
import Logging
import PostgresNIO
import SibylCore
import Synchronization
import VectorIndex

extension PostgresKnowledgeBase {
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
    func documents(where condition: String, _ values: any PostgresEncodable & Sendable..., limit: Int? = nil) async throws -> [StoredDocument] {
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
    func owned(collection id: Int64, on connection: PostgresConnection) async throws -> Int64? {
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
}
