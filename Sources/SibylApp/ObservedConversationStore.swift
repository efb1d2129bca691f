import Foundation
import SibylCore
import Storage

/// A conversation store that tells `events` of every change written through it: conversations
/// made, changed and deleted, messages added and changed, new log entries. Reads pass through.
struct ObservedConversationStore: ConversationStorage {
    let base: any ConversationStorage
    let events: LiveEvents

    func create(_ conversation: Conversation) async throws {
        try await base.create(conversation)
        events.publish(.conversation(id: conversation.id, change: .created))
    }

    func setTitle(_ title: String?, for conversationID: UUID) async throws {
        try await base.setTitle(title, for: conversationID)
        events.publish(.conversation(id: conversationID, change: .changed))
    }

    func setMode(_ mode: ConversationMode, for conversationID: UUID) async throws {
        try await base.setMode(mode, for: conversationID)
        events.publish(.conversation(id: conversationID, change: .changed))
    }

    func setPersona(_ persona: String, for conversationID: UUID) async throws {
        try await base.setPersona(persona, for: conversationID)
        events.publish(.conversation(id: conversationID, change: .changed))
    }

    func delete(conversation conversationID: UUID) async throws -> Bool {
        let deleted = try await base.delete(conversation: conversationID)
        if deleted { events.publish(.conversation(id: conversationID, change: .deleted)) }
        return deleted
    }

    func importArchive(_ archive: ConversationArchive) async throws -> Conversation {
        let conversation = try await base.importArchive(archive)
        events.publish(.conversation(id: conversation.id, change: .created))
        return conversation
    }

    func append(_ message: Message) async throws {
        try await base.append(message)
        events.publish(.message(conversationID: message.conversationID, id: message.id, change: .created))
    }

    func update(_ message: Message) async throws {
        try await base.update(message)
        events.publish(.message(conversationID: message.conversationID, id: message.id, change: .changed))
    }

    func deleteMessage(id: UUID) async throws -> Bool {
        let conversationID = try await base.message(id: id)?.conversationID
        let deleted = try await base.deleteMessage(id: id)
        if deleted, let conversationID { events.publish(.message(conversationID: conversationID, id: id, change: .deleted)) }
        return deleted
    }

    func settlePendingAnswers(in conversationID: UUID, reason: String) async throws -> Int {
        let settled = try await base.settlePendingAnswers(in: conversationID, reason: reason)
        if settled > 0 { events.publish(.conversation(id: conversationID, change: .changed)) }
        return settled
    }

    func log(_ level: LogEntry.Level, _ category: String, _ message: String, detailsJSON: String?) async throws {
        try await base.log(level, category, message, detailsJSON: detailsJSON)
        events.publish(.log)
    }

    // Drafts of answers being written are not told: the tab asking follows the answer's own
    // stream, and others follow it once they learn of the answer (`turns/current`).
    func saveDrafts(_ drafts: [UUID: String]) async throws { try await base.saveDrafts(drafts) }

    func conversation(id: UUID) async throws -> Conversation? { try await base.conversation(id: id) }
    func conversation(idPrefix: String) async throws -> Conversation { try await base.conversation(idPrefix: idPrefix) }
    func conversations(_ query: ConversationQuery, limit: Int, offset: Int) async throws -> [ConversationSummary] {
        try await base.conversations(query, limit: limit, offset: offset)
    }
    func countConversations(_ query: ConversationQuery) async throws -> Int { try await base.countConversations(query) }
    func latestConversation(source: ConversationSource?) async throws -> Conversation? { try await base.latestConversation(source: source) }
    func archive(conversationID: UUID) async throws -> ConversationArchive { try await base.archive(conversationID: conversationID) }
    func messages(in conversationID: UUID) async throws -> [Message] { try await base.messages(in: conversationID) }
    func message(id: UUID) async throws -> Message? { try await base.message(id: id) }
    func save(_ persona: Persona) async throws { try await base.save(persona) }
    func persona(named name: String) async throws -> Persona? { try await base.persona(named: name) }
    func personas() async throws -> [Persona] { try await base.personas() }
    func deletePersona(named name: String) async throws -> Bool { try await base.deletePersona(named: name) }
    func logEntries(minimumLevel: LogEntry.Level, since: Date?, until: Date?, operation: String?, matching text: String?, limit: Int?) async throws -> [LogEntry] {
        try await base.logEntries(minimumLevel: minimumLevel, since: since, until: until, operation: operation, matching: text, limit: limit)
    }
    func generatedImages(limit: Int, offset: Int) async throws -> [StoredImageRecord] { try await base.generatedImages(limit: limit, offset: offset) }
    func attachment(id: UUID) async throws -> Attachment? { try await base.attachment(id: id) }
    var changeCount: Int? { base.changeCount }
}
