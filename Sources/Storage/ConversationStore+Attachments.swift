import Foundation
internal import GRDB
import SibylCore

extension ConversationStore {
    /// Deletes files in the attachments directory that no attachment refers to; returns how many.
    ///
    /// Such files are left behind only when the process stops between a database change and the
    /// matching file operation. Files younger than `age` are spared, since an append in another
    /// process may have written one and not yet committed the row that refers to it.
    @discardableResult
    public func removeUnusedAttachmentFiles(olderThan age: Duration = .seconds(3600)) throws -> Int {
        guard let files else { return 0 }
        let cutoff = Date().addingTimeInterval(-Double(age.milliseconds) / 1000)
        let candidates = try files.names(modifiedBefore: cutoff)
        guard !candidates.isEmpty else { return 0 }
        let referenced = try read { db in
            try Set(String.fetchAll(db, sql: "SELECT path FROM attachment WHERE path IS NOT NULL"))
        }
        let unused = candidates.filter { !referenced.contains($0) }
        files.remove(unused)
        return unused.count
    }

    /// Inserts an attachment row, writing its bytes to a file first when they are too big to inline.
    ///
    /// Paths of files written are appended to `written` so that a failed transaction can remove them.
    func insertAttachment(_ db: Database, _ attachment: Attachment, messageID: UUID, position: Int, written: inout [String]) throws {
        var record = AttachmentRecord(attachment, messageID: messageID, position: position, data: attachment.data, path: nil)
        if let files, attachment.data.count > AttachmentFiles.inlineLimit {
            let path = try files.write(attachment.data)
            written.append(path)
            record.data = nil
            record.path = path
        }
        try record.insert(db)
    }

    /// Makes a message's stored attachments match `attachments`, rewriting only what changed.
    ///
    /// Files of replaced or removed attachments are appended to `obsolete`, to be deleted once the
    /// transaction has committed.
    func replaceAttachments(
        _ db: Database, of messageID: UUID, with attachments: [Attachment], written: inout [String], obsolete: inout [String]
    ) throws {
        let existing = try AttachmentRecord.fetchAll(
            db, sql: "SELECT * FROM attachment WHERE message_id = ?", arguments: [messageID.storageKey]
        )
        var remaining = Dictionary(existing.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for (position, attachment) in attachments.enumerated() {
            if let old = remaining.removeValue(forKey: attachment.id) {
                if old.hasSameMetadata(as: attachment), try bytes(of: old) == attachment.data {
                    if old.position != position {
                        try db.execute(
                            sql: "UPDATE attachment SET position = ? WHERE id = ?", arguments: [position, old.id.storageKey]
                        )
                    }
                    continue
                }
                try old.delete(db)
                if let path = old.path { obsolete.append(path) }
            }
            try insertAttachment(db, attachment, messageID: messageID, position: position, written: &written)
        }
        for old in remaining.values {
            try old.delete(db)
            if let path = old.path { obsolete.append(path) }
        }
    }

    /// Attachments returned by `sql`, grouped by message, each group in the order the rows come.
    func attachmentsByMessage(_ db: Database, sql: String, arguments: StatementArguments) throws -> [UUID: [Attachment]] {
        var grouped: [UUID: [Attachment]] = [:]
        for record in try AttachmentRecord.fetchAll(db, sql: sql, arguments: arguments) {
            let attachment = Attachment(
                id: record.id, kind: record.kind, mimeType: record.mimeType, filename: record.filename, data: try bytes(of: record)
            )
            grouped[record.messageID, default: []].append(attachment)
        }
        return grouped
    }

    /// An attachment's bytes, from the row or from its file.
    func bytes(of record: AttachmentRecord) throws -> Data {
        guard let path = record.path else { return record.data ?? Data() }
        guard let files else {
            throw StorageError.attachmentMissing(record.id, path: path)
        }
        return try files.read(path, attachmentID: record.id)
    }
}
