public import Assistant
public import Foundation
public import SibylCore
import Storage

extension SibylRuntime.Conversations {
    /// The conversation a choice names, started now when it is a new one.
    public func conversation(for choice: ConversationChoice) async throws -> Conversation {
        switch choice {
        case .id(let id):
            return try await conversation(id: id)
        case .reference(let text):
            if let id = UUID(uuidString: text.trimmingCharacters(in: .whitespaces)) { return try await conversation(id: id) }
            return try await runtime.store.conversation(idPrefix: text)
        case .new(let new):
            return try await runtime.engine.startConversation(persona: new.persona ?? runtime.defaultPersona, mode: new.mode, source: new.source)
        case .latestOrNew(let new):
            if let latest = try await runtime.store.latestConversation(source: new.source) { return latest }
            return try await runtime.engine.startConversation(persona: new.persona ?? runtime.defaultPersona, mode: new.mode, source: new.source)
        }
    }

    /// A conversation by id.
    public func conversation(id: UUID) async throws -> Conversation {
        guard let conversation = try await runtime.store.conversation(id: id) else { throw AssistantError.conversationNotFound(id) }
        return conversation
    }

    /// Starts a conversation.
    public func start(_ new: NewConversation, title: String? = nil) async throws -> Conversation {
        var conversation = try await runtime.engine.startConversation(persona: new.persona ?? runtime.defaultPersona, mode: new.mode, source: new.source)
        if let title {
            try await runtime.store.setTitle(title, for: conversation.id)
            conversation.title = try await runtime.store.conversation(id: conversation.id)?.title
        }
        return conversation
    }

    /// Conversations, most recently updated first, a page at a time; `matching` searches titles
    /// and messages; `drawn` keeps those with drawn images (true) or those without (false).
    public func list(limit: Int = 50, offset: Int = 0, source: ConversationSource? = nil, matching text: String? = nil, drawn: Bool? = nil) async throws -> ConversationPage {
        let limit = min(max(limit, 1), 500)
        let offset = max(offset, 0)
        let query = ConversationQuery(source: source, matching: text, drawn: drawn)
        return ConversationPage(
            items: try await runtime.store.conversations(query, limit: limit, offset: offset),
            total: try await runtime.store.countConversations(query),
            offset: offset,
            limit: limit
        )
    }

    /// A conversation's messages, oldest first.
    public func messages(in conversationID: UUID) async throws -> [Message] {
        _ = try await conversation(id: conversationID)
        return try await runtime.store.messages(in: conversationID)
    }

    /// One message of a conversation.
    public func message(_ messageID: UUID, in conversationID: UUID) async throws -> Message {
        guard let message = try await runtime.store.message(id: messageID), message.conversationID == conversationID else {
            throw AssistantError.messageNotFound(messageID)
        }
        return message
    }

    /// Changes a conversation's title, persona or mode; nil leaves that part as it is, and a blank
    /// title clears it.
    public func update(_ id: UUID, title: String?? = nil, persona: String? = nil, mode: ConversationMode? = nil) async throws -> Conversation {
        _ = try await conversation(id: id)
        if let persona {
            let resolved = try await runtime.engine.personas.persona(named: persona)
            try await runtime.store.setPersona(resolved.name, for: id)
        }
        if let mode { try await runtime.store.setMode(mode, for: id) }
        if let title { try await runtime.store.setTitle(title, for: id) }
        return try await conversation(id: id)
    }

    /// Deletes a conversation with its messages and attachments; an answer under way in it is stopped first.
    public func delete(_ id: UUID) async throws {
        let existing = try await conversation(id: id)
        if let turn = runtime.turns.turn(inConversation: id) {
            turn.cancel()
            await turn.waitUntilEnded()
        }
        try await runtime.store.delete(conversation: id)
        await runtime.log(.info, .conversationsDelete, "deleted conversation \(existing.id.uuidString.prefix(8).lowercased())")
    }

    /// A conversation as a file: Sibyl's JSON archive (re-importable) or Markdown.
    public func export(conversation id: UUID, as format: ConversationExportFormat) async throws -> Data {
        _ = try await conversation(id: id)
        switch format {
        case .json: return try await runtime.store.exportJSON(conversationID: id)
        case .markdown: return Data(try await runtime.store.exportMarkdown(conversationID: id).utf8)
        }
    }

    /// Imports a conversation from Sibyl's JSON archive; nothing is written unless all of it is valid.
    public func importArchive(_ data: Data) async throws -> Conversation {
        let conversation = try await runtime.store.importJSON(data)
        await runtime.log(.info, .conversationsImport, "imported conversation \(conversation.id.uuidString.prefix(8).lowercased())")
        return conversation
    }
}

extension SibylRuntime.Conversations {
    /// The chat model answers go to now, with a turn's own choice over the settings'.
    public func currentModel(options: TurnOptions = TurnOptions()) async throws -> String {
        try await runtime.engine.currentModel(options: options)
    }

    /// The answer being written in a conversation, if any.
    public func answerUnderWay(in conversationID: UUID) -> LiveTurn? {
        runtime.turns.turn(inConversation: conversationID)
    }

    /// Whether an answer is being written in a conversation.
    public func isAnswering(_ conversationID: UUID) -> Bool {
        runtime.engine.isBusy(conversationID)
    }

    /// What a listing of conversations depends on: the store's change count (nil when another
    /// process may change it unseen, so nothing may be cached) and the answers started and ended.
    public func listingVersion() -> (store: Int, activity: Int)? {
        runtime.engine.store.changeCount.map { ($0, runtime.engine.activityCount) }
    }
}
