public import Foundation
internal import GRDB
public import SibylCore

extension ConversationStore {
    /// Imports a conversation exported with `exportJSON(conversationID:)` and returns it as stored.
    ///
    /// Throws `invalidArchive`, `unsupportedArchiveFormat` or `unsupportedArchiveVersion` for data
    /// that cannot be imported. See `importArchive(_:)` for how ids are chosen.
    @discardableResult
    public func importJSON(_ data: Data) throws -> Conversation {
        try importArchive(ConversationArchive(jsonData: data))
    }

    /// Stores an archived conversation with its messages and attachments, in one transaction.
    ///
    /// The archive's ids are kept when none of them is in use, so a backup restores as it was.
    /// Otherwise the conversation, its messages and attachments all get fresh ids, so that an
    /// import never overwrites or merges into what is stored: importing twice gives two copies.
    @discardableResult
    public func importArchive(_ archive: ConversationArchive) throws -> Conversation {
        var (conversation, messages) = try archive.restored()
        var written: [String] = []
        do {
            return try write { db in
                if try idsAreTaken(db, conversation: conversation, messages: messages) {
                    (conversation, messages) = ConversationArchive.withFreshIDs(conversation, messages)
                }
                try ConversationRecord(conversation).insert(db)
                for (index, message) in messages.enumerated() {
                    try MessageRecord(message, position: Int64(index + 1)).insert(db)
                    for (position, attachment) in message.attachments.enumerated() {
                        try insertAttachment(db, attachment, messageID: message.id, position: position, written: &written)
                    }
                }
                return try ConversationRecord.fetchOne(db, key: conversation.id.storageKey)?.conversation ?? conversation
            }
        } catch {
            files?.remove(written)
            throw error
        }
    }

    /// Whether any of the archive's ids is stored already, or repeats within the archive.
    private func idsAreTaken(_ db: Database, conversation: Conversation, messages: [Message]) throws -> Bool {
        if try conversationExists(db, id: conversation.id) { return true }
        let messageIDs = messages.map(\.id)
        let attachmentIDs = messages.flatMap { $0.attachments.map(\.id) }
        if Set(messageIDs).count != messageIDs.count || Set(attachmentIDs).count != attachmentIDs.count { return true }
        for id in messageIDs where try messageExists(db, id: id) { return true }
        for id in attachmentIDs {
            let taken = try Bool.fetchOne(
                db, sql: "SELECT EXISTS (SELECT 1 FROM attachment WHERE id = ?)", arguments: [id.storageKey]
            ) ?? false
            if taken { return true }
        }
        return false
    }
}
