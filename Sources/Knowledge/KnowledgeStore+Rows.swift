import Foundation
import GRDB
import SibylCore
import VectorIndex

extension KnowledgeStore {
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
