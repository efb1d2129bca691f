public import Foundation
public import SibylCore

/// Where Sibyl keeps conversations, their messages and attachments, personas and the operations
/// log. Two back ends: a SQLite file per data directory (`ConversationStore`, through
/// `QueuedConversationStore`) and one PostgreSQL that several `sibyl serve` instances share
/// (`PostgresConversationStore`).
///
/// Both keep the same promises: a message is written whole with its attachments or not at all;
/// deleting a conversation deletes everything in it; appends get positions in order even when
/// several writers append at once; an answer left `pending` by a process that died is marked
/// failed, never one that a live process is still writing.
public protocol ConversationStorage: Sendable {
    /// Stores a new conversation; fails with `conversationExists` if its id is taken.
    func create(_ conversation: Conversation) async throws
    /// The conversation with this id, or nil.
    func conversation(id: UUID) async throws -> Conversation?
    /// The one conversation whose id starts with `idPrefix` (case and hyphens ignored); throws
    /// `notFound`, `ambiguous` or `invalidIDPrefix`.
    func conversation(idPrefix: String) async throws -> Conversation
    /// Conversations that match a query, most recently updated first, a page at a time.
    func conversations(_ query: ConversationQuery, limit: Int, offset: Int) async throws -> [ConversationSummary]
    /// How many conversations match a query.
    func countConversations(_ query: ConversationQuery) async throws -> Int
    /// The most recently updated conversation, from one source or any.
    func latestConversation(source: ConversationSource?) async throws -> Conversation?
    /// Renames a conversation; a blank title clears it.
    func setTitle(_ title: String?, for conversationID: UUID) async throws
    /// Switches a conversation between chat and translation.
    func setMode(_ mode: ConversationMode, for conversationID: UUID) async throws
    /// Makes the named persona answer in this conversation from now on.
    func setPersona(_ persona: String, for conversationID: UUID) async throws
    /// Deletes a conversation with its messages and attachments; false if there was none.
    @discardableResult
    func delete(conversation conversationID: UUID) async throws -> Bool

    /// The conversation, its messages and attachments, read at one moment.
    func archive(conversationID: UUID) async throws -> ConversationArchive
    /// Stores an archived conversation in one transaction, keeping its ids unless one is taken
    /// (then everything gets fresh ids: an import never overwrites or merges).
    @discardableResult
    func importArchive(_ archive: ConversationArchive) async throws -> Conversation

    /// The messages of a conversation in order, attachments included.
    func messages(in conversationID: UUID) async throws -> [Message]
    /// The message with this id, or nil.
    func message(id: UUID) async throws -> Message?
    /// Adds a message at the end of its conversation and marks the conversation as just updated.
    func append(_ message: Message) async throws
    /// Saves a message's new state (text, status, model, usage, timings, error, attachments).
    func update(_ message: Message) async throws
    /// Saves the text so far of answers still being written; a finished answer keeps its text.
    func saveDrafts(_ drafts: [UUID: String]) async throws
    /// Deletes a message and its attachments; false if there was none.
    @discardableResult
    func deleteMessage(id: UUID) async throws -> Bool
    /// Marks failed, with `reason`, the answers of a conversation left `pending` by a writer that
    /// is gone, and returns how many are still being written by another live process (so the
    /// conversation is busy there). Call it only while this process writes no answer there.
    func settlePendingAnswers(in conversationID: UUID, reason: String) async throws -> Int

    /// Saves a user-defined persona, replacing the one with the same name in any letter case.
    func save(_ persona: Persona) async throws
    /// The user-defined persona with this name in any letter case, or nil.
    func persona(named name: String) async throws -> Persona?
    /// All user-defined personas, sorted by name.
    func personas() async throws -> [Persona]
    /// Deletes the user-defined persona with this name; false if there was none.
    @discardableResult
    func deletePersona(named name: String) async throws -> Bool

    /// Appends to the operations log, details as a JSON object text; secrets are redacted.
    func log(_ level: LogEntry.Level, _ category: String, _ message: String, detailsJSON: String?) async throws
    /// Log entries, oldest first, filtered by minimum level, time, operation (`docs` also takes
    /// `docs.add`) and a case-insensitive text match; `limit` keeps the newest.
    func logEntries(minimumLevel: LogEntry.Level, since: Date?, until: Date?, operation: String?, matching text: String?, limit: Int?) async throws -> [LogEntry]

    /// Images attached to answers (those Sibyl drew), newest first.
    func generatedImages(limit: Int, offset: Int) async throws -> [StoredImageRecord]
    /// An attachment with its bytes, or nil.
    func attachment(id: UUID) async throws -> Attachment?

    /// A number that grows after every write this process makes, so that a listing read after
    /// taking it stays current while it does not change; nil when other processes write too
    /// (a shared database), so nothing may be cached.
    var changeCount: Int? { get }
}

extension ConversationStorage {
    /// The newest conversations, from one source or any.
    public func conversations(source: ConversationSource? = nil, limit: Int = 1000) async throws -> [ConversationSummary] {
        try await conversations(ConversationQuery(source: source), limit: limit, offset: 0)
    }

    /// The conversation as a `ConversationArchive` in pretty-printed JSON, for backup or moving it.
    public func exportJSON(conversationID: UUID) async throws -> Data {
        try await archive(conversationID: conversationID).jsonData()
    }

    /// The conversation as a Markdown transcript, for people to read.
    public func exportMarkdown(conversationID: UUID) async throws -> String {
        let (conversation, messages) = try await archive(conversationID: conversationID).restored()
        return MarkdownTranscript.render(conversation, messages: messages)
    }

    /// Imports a conversation exported with `exportJSON(conversationID:)`.
    @discardableResult
    public func importJSON(_ data: Data) async throws -> Conversation {
        try await importArchive(ConversationArchive(jsonData: data))
    }
}
