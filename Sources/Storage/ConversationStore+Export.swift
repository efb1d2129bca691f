public import Foundation
internal import GRDB
import SibylCore

extension ConversationStore {
    /// The conversation, its messages and attachments as a `ConversationArchive`.
    public func archive(conversationID: UUID) throws -> ConversationArchive {
        let (conversation, messages) = try snapshot(of: conversationID)
        return ConversationArchive(conversation: conversation, messages: messages)
    }

    /// The conversation as a `ConversationArchive` in pretty-printed JSON, for backup or moving it.
    public func exportJSON(conversationID: UUID) throws -> Data {
        try archive(conversationID: conversationID).jsonData()
    }

    /// The conversation as a Markdown transcript, for people to read.
    ///
    /// A heading with the title, a line with persona, mode, source and creation time, then each
    /// message under a role heading with its time; failed and cancelled messages say so with their
    /// error; model, tokens and timings follow in small print; attachments are listed, not embedded.
    public func exportMarkdown(conversationID: UUID) throws -> String {
        let (conversation, messages) = try snapshot(of: conversationID)
        return MarkdownTranscript.render(conversation, messages: messages)
    }

    /// The header and messages read in one transaction, so an export never mixes two states.
    private func snapshot(of conversationID: UUID) throws -> (Conversation, [Message]) {
        try read { db in
            guard let conversation = try ConversationRecord.fetchOne(db, key: conversationID.storageKey)?.conversation else {
                throw StorageError.notFound(conversationID.storageKey)
            }
            return (conversation, try fetchMessages(db, in: conversationID))
        }
    }
}
