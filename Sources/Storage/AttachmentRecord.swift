import Foundation
internal import GRDB
import SibylCore

/// A row of the `attachment` table: metadata plus either the bytes or the name of their file.
struct AttachmentRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "attachment"

    var id: UUID
    var messageID: UUID
    var position: Int
    var kind: Attachment.Kind
    var mimeType: String
    var filename: String?
    var byteCount: Int
    /// The bytes, for attachments small enough to keep in the database.
    var data: Data?
    /// The file holding the bytes, relative to the attachments directory.
    var path: String?

    init(_ attachment: Attachment, messageID: UUID, position: Int, data: Data?, path: String?) {
        id = attachment.id
        self.messageID = messageID
        self.position = position
        kind = attachment.kind
        mimeType = attachment.mimeType
        filename = attachment.filename
        byteCount = attachment.data.count
        self.data = data
        self.path = path
    }

    init(row: Row) throws {
        id = try row.decodeUUID("id")
        messageID = try row.decodeUUID("message_id")
        position = try row.decode(forColumn: "position")
        kind = try row.decodeEnum(Attachment.Kind.self, "kind")
        mimeType = try row.decode(forColumn: "mime_type")
        filename = try row.decode(forColumn: "filename")
        byteCount = try row.decode(forColumn: "byte_count")
        path = try row.decode(forColumn: "path")
        // An empty attachment may come back as NULL: what marks a file-backed one is its path.
        data = path == nil ? (try row.decode(Data?.self, forColumn: "data") ?? Data()) : nil
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = id.storageKey
        container["message_id"] = messageID.storageKey
        container["position"] = position
        container["kind"] = kind.rawValue
        container["mime_type"] = mimeType
        container["filename"] = filename
        container["byte_count"] = byteCount
        container["data"] = data
        container["path"] = path
    }

    /// Whether the stored metadata matches the attachment's (bytes are compared separately).
    func hasSameMetadata(as attachment: Attachment) -> Bool {
        kind == attachment.kind && mimeType == attachment.mimeType && filename == attachment.filename
            && byteCount == attachment.data.count
    }
}
