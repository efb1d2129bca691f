public import Foundation
import Logging
import PostgresNIO
public import SibylCore
public import Storage

extension PostgresConversationStore {
    public func archive(conversationID: UUID) async throws -> ConversationArchive {
        // One transaction: the header and the messages as they were at one moment.
        try await writing { connection in
            guard let conversation = try await owned(conversationID, on: connection) else { throw StorageError.notFound(conversationID.storageKeyText) }
            return ConversationArchive(conversation: conversation, messages: try await messages(where: "m.conversation_id = $2", conversationID, on: connection))
        }
    }

    public func importArchive(_ archive: ConversationArchive) async throws -> Conversation {
        var (conversation, messages) = try archive.restored()
        return try await writing { connection in
            if try await idsAreTaken(conversation: conversation, messages: messages, on: connection) {
                (conversation, messages) = ConversationArchive.withFreshIDs(conversation, messages)
            }
            try await connection.query("""
                INSERT INTO cv_conversation (id, owner, title, persona, mode, source, created_at, updated_at)
                VALUES (\(conversation.id), \(owner), \(conversation.title), \(conversation.persona), \(conversation.mode.storedValue),
                    \(conversation.source.rawValue), \(Timestamp.milliseconds(conversation.createdAt)), \(Timestamp.milliseconds(conversation.updatedAt)))
                """, logger: logger)
            for (index, message) in messages.enumerated() {
                try await insert(message, position: Int64(index + 1), on: connection)
            }
            return try await owned(conversation.id, on: connection) ?? conversation
        }
    }

    /// Whether any of the archive's ids is stored already (by anyone), or repeats within the archive.
    func idsAreTaken(conversation: Conversation, messages: [Message], on connection: PostgresConnection) async throws -> Bool {
        let messageIDs = messages.map(\.id)
        let attachmentIDs = messages.flatMap { $0.attachments.map(\.id) }
        if Set(messageIDs).count != messageIDs.count || Set(attachmentIDs).count != attachmentIDs.count { return true }
        let rows = try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM cv_conversation WHERE id = \(conversation.id))
                OR EXISTS (SELECT 1 FROM cv_message WHERE id = ANY(\(messageIDs)))
                OR EXISTS (SELECT 1 FROM cv_attachment WHERE id = ANY(\(attachmentIDs)))
            """, logger: logger)
        for try await taken in rows.decode(Bool.self) { return taken }
        return false
    }
}
