public import Foundation
import Logging
import PostgresNIO
public import SibylCore
public import Storage

extension PostgresConversationStore {
    public func generatedImages(limit: Int, offset: Int) async throws -> [StoredImageRecord] {
        try await calling {
            let rows = try await database.client.query("""
                SELECT a.id, a.kind, a.mime_type, a.filename, a.byte_count, m.id, m.conversation_id, m.created_at,
                    (SELECT q.text FROM cv_message q WHERE q.conversation_id = m.conversation_id AND q.role = 'user' AND q.position < m.position
                        ORDER BY q.position DESC LIMIT 1)
                FROM cv_attachment a JOIN cv_message m ON m.id = a.message_id JOIN cv_conversation c ON c.id = m.conversation_id
                WHERE c.owner = \(owner) AND a.kind = 'image' AND m.role = 'assistant'
                ORDER BY m.created_at DESC, a.position LIMIT \(limit) OFFSET \(offset)
                """, logger: logger)
            var images: [StoredImageRecord] = []
            for try await (id, kind, mimeType, filename, byteCount, messageID, conversationID, createdAt, prompt) in rows.decode(
                (UUID, String, String, String?, Int64, UUID, UUID, Int64, String?).self
            ) {
                images.append(StoredImageRecord(
                    attachment: AttachmentInfo(id: id, kind: Attachment.Kind(rawValue: kind) ?? .image, mimeType: mimeType, filename: filename),
                    conversationID: conversationID, messageID: messageID, byteCount: Int(byteCount), prompt: prompt,
                    createdAt: Timestamp.date(milliseconds: createdAt)
                ))
            }
            return images
        }
    }

    public func attachment(id: UUID) async throws -> Attachment? {
        try await calling {
            let rows = try await database.client.query("""
                SELECT a.kind, a.mime_type, a.filename, a.data FROM cv_attachment a JOIN cv_message m ON m.id = a.message_id
                JOIN cv_conversation c ON c.id = m.conversation_id WHERE a.id = \(id) AND c.owner = \(owner)
                """, logger: logger)
            for try await (kind, mimeType, filename, data) in rows.decode((String, String, String?, Data).self) {
                guard let kind = Attachment.Kind(rawValue: kind) else { throw StorageError.corruptRecord("unknown attachment kind '\(kind)'") }
                return Attachment(id: id, kind: kind, mimeType: mimeType, filename: filename, data: data)
            }
            return nil
        }
    }
}
