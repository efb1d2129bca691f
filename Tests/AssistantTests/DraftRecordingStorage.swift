import Foundation
import SibylCore
import Storage
import TestEvents

/// A conversation store that tells the test each draft the engine saves (the event a test of
/// saving answers as they grow waits for), and otherwise does what the store it wraps does.
struct DraftRecordingStorage: ConversationStorage {
    let base: any ConversationStorage
    /// The texts saved as drafts, in order.
    let drafts: Observed<[String]>

    init(_ base: any ConversationStorage, drafts: Observed<[String]>) {
        self.base = base
        self.drafts = drafts
    }

    func saveDrafts(_ saved: [UUID: String]) async throws {
        try await base.saveDrafts(saved)
        drafts.update { $0.append(contentsOf: saved.values.sorted()) }
    }

    func create(_ conversation: Conversation) async throws { try await base.create(conversation) }
    func conversation(id: UUID) async throws -> Conversation? { try await base.conversation(id: id) }
    func conversation(idPrefix: String) async throws -> Conversation { try await base.conversation(idPrefix: idPrefix) }
    func conversations(_ query: ConversationQuery, limit: Int, offset: Int) async throws -> [ConversationSummary] {
        try await base.conversations(query, limit: limit, offset: offset)
    }
    func countConversations(_ query: ConversationQuery) async throws -> Int { try await base.countConversations(query) }
    func latestConversation(source: ConversationSource?) async throws -> Conversation? { try await base.latestConversation(source: source) }
    func setTitle(_ title: String?, for conversationID: UUID) async throws { try await base.setTitle(title, for: conversationID) }
    func setMode(_ mode: ConversationMode, for conversationID: UUID) async throws { try await base.setMode(mode, for: conversationID) }
    func setPersona(_ persona: String, for conversationID: UUID) async throws { try await base.setPersona(persona, for: conversationID) }
    func delete(conversation conversationID: UUID) async throws -> Bool { try await base.delete(conversation: conversationID) }
    func archive(conversationID: UUID) async throws -> ConversationArchive { try await base.archive(conversationID: conversationID) }
    func importArchive(_ archive: ConversationArchive) async throws -> Conversation { try await base.importArchive(archive) }
    func messages(in conversationID: UUID) async throws -> [Message] { try await base.messages(in: conversationID) }
    func message(id: UUID) async throws -> Message? { try await base.message(id: id) }
    func append(_ message: Message) async throws { try await base.append(message) }
    func update(_ message: Message) async throws { try await base.update(message) }
    func deleteMessage(id: UUID) async throws -> Bool { try await base.deleteMessage(id: id) }
    func settlePendingAnswers(in conversationID: UUID, reason: String) async throws -> Int {
        try await base.settlePendingAnswers(in: conversationID, reason: reason)
    }
    func save(_ persona: Persona) async throws { try await base.save(persona) }
    func persona(named name: String) async throws -> Persona? { try await base.persona(named: name) }
    func personas() async throws -> [Persona] { try await base.personas() }
    func deletePersona(named name: String) async throws -> Bool { try await base.deletePersona(named: name) }
    func log(_ level: LogEntry.Level, _ category: String, _ message: String, detailsJSON: String?) async throws {
        try await base.log(level, category, message, detailsJSON: detailsJSON)
    }
    func logEntries(minimumLevel: LogEntry.Level, since: Date?, until: Date?, operation: String?, matching text: String?, limit: Int?) async throws -> [LogEntry] {
        try await base.logEntries(minimumLevel: minimumLevel, since: since, until: until, operation: operation, matching: text, limit: limit)
    }
    func generatedImages(limit: Int, offset: Int) async throws -> [StoredImageRecord] { try await base.generatedImages(limit: limit, offset: offset) }
    func attachment(id: UUID) async throws -> Attachment? { try await base.attachment(id: id) }
    var changeCount: Int? { base.changeCount }
}
