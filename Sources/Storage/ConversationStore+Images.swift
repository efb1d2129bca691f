public import Foundation
internal import GRDB
public import SibylCore

/// An image an answer carries (one Sibyl drew), without its bytes.
public struct StoredImageRecord: Sendable, Hashable {
    public var attachment: AttachmentInfo
    public var conversationID: UUID
    public var messageID: UUID
    public var byteCount: Int
    /// The question the image answered: the prompt it was drawn from.
    public var prompt: String?
    public var createdAt: Date

    public init(attachment: AttachmentInfo, conversationID: UUID, messageID: UUID, byteCount: Int, prompt: String?, createdAt: Date) {
        self.attachment = attachment
        self.conversationID = conversationID
        self.messageID = messageID
        self.byteCount = byteCount
        self.prompt = prompt
        self.createdAt = createdAt
    }
}

/// An attachment's metadata, without its bytes.
public struct AttachmentInfo: Sendable, Hashable {
    public var id: UUID
    public var kind: Attachment.Kind
    public var mimeType: String
    public var filename: String?

    public init(id: UUID, kind: Attachment.Kind, mimeType: String, filename: String?) {
        self.id = id
        self.kind = kind
        self.mimeType = mimeType
        self.filename = filename
    }
}

extension ConversationStore {
    /// Images attached to answers (those Sibyl drew), newest first.
    public func generatedImages(limit: Int, offset: Int) throws -> [StoredImageRecord] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT attachment.id, attachment.kind, attachment.mime_type, attachment.filename, attachment.byte_count,
                        message.id AS message_id, message.conversation_id, message.created_at,
                        (SELECT question.text FROM message AS question
                            WHERE question.conversation_id = message.conversation_id AND question.role = 'user' AND question.position < message.position
                            ORDER BY question.position DESC LIMIT 1) AS prompt
                    FROM attachment JOIN message ON message.id = attachment.message_id
                    WHERE attachment.kind = 'image' AND message.role = 'assistant'
                    ORDER BY message.created_at DESC, attachment.position
                    LIMIT ? OFFSET ?
                    """,
                arguments: [limit, offset]
            )
            return try rows.map { row in
                StoredImageRecord(
                    attachment: AttachmentInfo(
                        id: try row.decodeUUID("id"), kind: try row.decodeEnum(Attachment.Kind.self, "kind"),
                        mimeType: try row.decode(forColumn: "mime_type"), filename: try row.decode(forColumn: "filename")
                    ),
                    conversationID: try row.decodeUUID("conversation_id"),
                    messageID: try row.decodeUUID("message_id"),
                    byteCount: try row.decode(forColumn: "byte_count"),
                    prompt: try row.decode(forColumn: "prompt"),
                    createdAt: Timestamp.date(milliseconds: try row.decode(forColumn: "created_at"))
                )
            }
        }
    }

    /// An attachment with its bytes, or nil.
    public func attachment(id: UUID) throws -> Attachment? {
        try read { db in
            guard let record = try AttachmentRecord.fetchOne(db, sql: "SELECT * FROM attachment WHERE id = ?", arguments: [id.storageKey]) else { return nil }
            return Attachment(id: record.id, kind: record.kind, mimeType: record.mimeType, filename: record.filename, data: try bytes(of: record))
        }
    }
}
