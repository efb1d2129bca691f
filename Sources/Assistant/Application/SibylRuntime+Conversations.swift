import Foundation
import SibylCore
import Storage

/// A page of conversations.
public struct ConversationPage: Sendable {
    public var items: [ConversationSummary]
    /// How many conversations match in all.
    public var total: Int
    public var offset: Int
    public var limit: Int
}

/// How a conversation is exported.
public enum ConversationExportFormat: String, Sendable, CaseIterable, Codable {
    /// Sibyl's archive: everything, attachments included, and re-importable.
    case json
    /// A transcript to read.
    case markdown
}

extension SibylRuntime {
    /// The conversation a choice names, started now when it is a new one.
    public func conversation(for choice: ConversationChoice) throws -> Conversation {
        switch choice {
        case .id(let id):
            return try conversation(id: id)
        case .reference(let text):
            if let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) { return try conversation(id: id) }
            return try store.conversation(idPrefix: text)
        case .new(let new):
            return try engine.startConversation(persona: new.persona ?? defaultPersona, mode: new.mode, source: new.source)
        case .latestOrNew(let new):
            if let latest = try store.latestConversation(source: new.source) { return latest }
            return try engine.startConversation(persona: new.persona ?? defaultPersona, mode: new.mode, source: new.source)
        }
    }

    /// A conversation by id.
    public func conversation(id: UUID) throws -> Conversation {
        guard let conversation = try store.conversation(id: id) else { throw AssistantError.conversationNotFound(id) }
        return conversation
    }

    /// Starts a conversation.
    public func startConversation(_ new: NewConversation, title: String? = nil) throws -> Conversation {
        var conversation = try engine.startConversation(persona: new.persona ?? defaultPersona, mode: new.mode, source: new.source)
        if let title {
            try store.setTitle(title, for: conversation.id)
            conversation.title = try store.conversation(id: conversation.id)?.title
        }
        return conversation
    }

    /// Conversations, most recently updated first, a page at a time; `matching` searches titles and messages.
    public func conversations(limit: Int = 50, offset: Int = 0, source: ConversationSource? = nil, matching text: String? = nil) throws -> ConversationPage {
        let limit = min(max(limit, 1), 500)
        let offset = max(offset, 0)
        let query = ConversationQuery(source: source, matching: text)
        return ConversationPage(
            items: try store.conversations(query, limit: limit, offset: offset),
            total: try store.countConversations(query),
            offset: offset,
            limit: limit
        )
    }

    /// A conversation's messages, oldest first.
    public func messages(in conversationID: UUID) throws -> [Message] {
        _ = try conversation(id: conversationID)
        return try store.messages(in: conversationID)
    }

    /// One message of a conversation.
    public func message(_ messageID: UUID, in conversationID: UUID) throws -> Message {
        guard let message = try store.message(id: messageID), message.conversationID == conversationID else {
            throw AssistantError.messageNotFound(messageID)
        }
        return message
    }

    /// Changes a conversation's title, persona or mode; nil leaves that part as it is, and a blank
    /// title clears it.
    public func updateConversation(_ id: UUID, title: String?? = nil, persona: String? = nil, mode: ConversationMode? = nil) throws -> Conversation {
        _ = try conversation(id: id)
        if let persona {
            let resolved = try engine.personas.persona(named: persona)
            try store.setPersona(resolved.name, for: id)
        }
        if let mode { try store.setMode(mode, for: id) }
        if let title { try store.setTitle(title, for: id) }
        return try conversation(id: id)
    }

    /// Deletes a conversation with its messages and attachments; an answer under way in it is stopped first.
    public func deleteConversation(_ id: UUID) async throws {
        let existing = try conversation(id: id)
        if let turn = turns.turn(inConversation: id) {
            turn.cancel()
            await turn.waitUntilEnded()
        }
        try store.delete(conversation: id)
        log(.info, "conversations.delete", "deleted conversation \(existing.id.uuidString.prefix(8).lowercased())")
    }

    /// A conversation as a file: Sibyl's JSON archive (re-importable) or Markdown.
    public func export(conversation id: UUID, as format: ConversationExportFormat) throws -> Data {
        _ = try conversation(id: id)
        switch format {
        case .json: return try store.exportJSON(conversationID: id)
        case .markdown: return Data(try store.exportMarkdown(conversationID: id).utf8)
        }
    }

    /// Imports a conversation from Sibyl's JSON archive; nothing is written unless all of it is valid.
    public func importConversation(_ data: Data) throws -> Conversation {
        let conversation = try store.importJSON(data)
        log(.info, "conversations.import", "imported conversation \(conversation.id.uuidString.prefix(8).lowercased())")
        return conversation
    }
}
