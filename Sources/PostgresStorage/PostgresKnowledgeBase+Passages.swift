import Foundation
public import Knowledge
import Logging
import PostgresNIO
import SibylCore
import Synchronization
import VectorIndex

extension PostgresKnowledgeBase {
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

    func passages(where condition: String, _ values: any PostgresEncodable & Sendable...) async throws -> [StoredChunk] {
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
}
