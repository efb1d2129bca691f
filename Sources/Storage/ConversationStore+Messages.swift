public import Foundation
internal import GRDB
public import SibylCore

extension ConversationStore {
    /// The messages of a conversation in the order they were appended, attachments included.
    public func messages(in conversationID: UUID) throws -> [Message] {
        try read { db in
            guard try conversationExists(db, id: conversationID) else {
                throw StorageError.notFound(conversationID.storageKey)
            }
            return try fetchMessages(db, in: conversationID)
        }
    }

    /// The message with this id, or nil.
    public func message(id: UUID) throws -> Message? {
        try read { db in
            guard var message = try MessageRecord.fetchOne(db, key: id.storageKey)?.message else { return nil }
            message.attachments = try attachmentsByMessage(
                db,
                sql: "SELECT * FROM attachment WHERE message_id = ? ORDER BY position",
                arguments: [id.storageKey]
            )[id] ?? []
            return message
        }
    }

    /// Adds a message at the end of its conversation and marks the conversation as just updated.
    ///
    /// The position is taken inside the write transaction, so concurrent appends each get their own.
    public func append(_ message: Message) throws {
        var written: [String] = []
        do {
            try write { db in
                guard try conversationExists(db, id: message.conversationID) else {
                    throw StorageError.notFound(message.conversationID.storageKey)
                }
                guard try !messageExists(db, id: message.id) else {
                    throw StorageError.messageExists(message.id)
                }
                let position = try Int64.fetchOne(
                    db,
                    sql: "SELECT COALESCE(MAX(position), 0) + 1 FROM message WHERE conversation_id = ?",
                    arguments: [message.conversationID.storageKey]
                ) ?? 1
                try MessageRecord(message, position: position).insert(db)
                for (index, attachment) in message.attachments.enumerated() {
                    try insertAttachment(db, attachment, messageID: message.id, position: index, written: &written)
                }
                try touchConversation(db, id: message.conversationID)
            }
        } catch {
            files?.remove(written)
            throw error
        }
    }

    /// Saves a message's new state: text, status, model, usage, timings, error and attachments.
    ///
    /// The message keeps its conversation, position and creation time. Attachments whose id and
    /// content are unchanged are left as they are; others are replaced, and removed ones deleted.
    public func update(_ message: Message) throws {
        var written: [String] = []
        var obsolete: [String] = []
        do {
            try write { db in
                guard var record = try MessageRecord.fetchOne(db, key: message.id.storageKey) else {
                    throw StorageError.messageNotFound(message.id)
                }
                let stored = record.message
                record.message = message
                record.message.conversationID = stored.conversationID
                record.message.createdAt = stored.createdAt
                try record.update(db)
                try replaceAttachments(db, of: message.id, with: message.attachments, written: &written, obsolete: &obsolete)
                try touchConversation(db, id: stored.conversationID)
            }
        } catch {
            files?.remove(written)
            throw error
        }
        files?.remove(obsolete)
    }

    /// Saves the text so far of answers still being written, all in one transaction.
    ///
    /// Only messages still `pending` change: an answer whose final state was saved meanwhile
    /// keeps it, so a late draft can never overwrite a finished answer.
    public func saveDrafts(_ drafts: [UUID: String]) throws {
        guard !drafts.isEmpty else { return }
        try write { db in
            let pending = MessageStatus.pending.rawValue
            for (id, text) in drafts {
                try db.execute(
                    sql: "UPDATE message SET text = ? WHERE id = ? AND status = ?",
                    arguments: [text, id.storageKey, pending]
                )
            }
        }
    }

    /// Marks every answer still `pending` as failed with `reason`: for answers whose writer died
    /// (a crash, kill -9, power loss). Only call it when no other process can be writing answers
    /// to this store (see `AnswerLease`). Returns how many there were.
    @discardableResult
    public func failPendingAnswers(reason: String) throws -> Int {
        try write { db in
            try db.execute(
                sql: "UPDATE message SET status = ?, error = ? WHERE status = ?",
                arguments: [MessageStatus.failed.rawValue, reason, MessageStatus.pending.rawValue]
            )
            return db.changesCount
        }
    }

    /// Marks the answers of one conversation still `pending` as failed with `reason`; returns how
    /// many there were. Only call it when no process is writing an answer there.
    @discardableResult
    public func failPendingAnswers(in conversationID: UUID, reason: String) throws -> Int {
        try write { db in
            try db.execute(
                sql: "UPDATE message SET status = ?, error = ? WHERE conversation_id = ? AND status = ?",
                arguments: [MessageStatus.failed.rawValue, reason, conversationID.storageKey, MessageStatus.pending.rawValue]
            )
            return db.changesCount
        }
    }

    /// Deletes a message and its attachment files; false if there was none.
    @discardableResult
    public func deleteMessage(id: UUID) throws -> Bool {
        var paths: [String] = []
        let deleted = try write { db in
            paths = try String.fetchAll(
                db,
                sql: "SELECT path FROM attachment WHERE message_id = ? AND path IS NOT NULL",
                arguments: [id.storageKey]
            )
            try db.execute(sql: "DELETE FROM message WHERE id = ?", arguments: [id.storageKey])
            return db.changesCount > 0
        }
        files?.remove(paths)
        return deleted
    }

    // MARK: - Helpers

    /// A conversation's messages with their attachments, inside the caller's transaction.
    func fetchMessages(_ db: Database, in conversationID: UUID) throws -> [Message] {
        let records = try MessageRecord.fetchAll(
            db,
            sql: "SELECT * FROM message WHERE conversation_id = ? ORDER BY position",
            arguments: [conversationID.storageKey]
        )
        let attachments = try attachmentsByMessage(
            db,
            sql: """
                SELECT attachment.* FROM attachment JOIN message ON message.id = attachment.message_id
                WHERE message.conversation_id = ? ORDER BY attachment.position
                """,
            arguments: [conversationID.storageKey]
        )
        return records.map { record in
            var message = record.message
            message.attachments = attachments[message.id] ?? []
            return message
        }
    }

    func messageExists(_ db: Database, id: UUID) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM message WHERE id = ?)", arguments: [id.storageKey]) ?? false
    }
}
