public import Foundation
public import SibylCore
import Dispatch

/// The queue SQLite writes on the answer path run on: a serial queue of its own, so libdispatch
/// gives it a thread even while every worker of the global pool is busy (embedding documents keeps
/// them busy for minutes), and SQLite, which has one writer, gets one caller at a time.
public let databaseWork = DispatchQueue(label: "sibyl.database-work", qos: .userInitiated)

/// Where SQLite reads run: concurrently (WAL readers never wait for the writer), on threads of
/// their own for the same reason.
let databaseReads = DispatchQueue(label: "sibyl.database-reads", qos: .userInitiated, attributes: .concurrent)

/// Runs blocking work, such as a database write, on `databaseWork`, and waits for it without
/// holding a thread.
///
/// Swift runs every task on a pool of one thread per core. A write that waits for SQLite's lock
/// or the disk on one of those threads stalls every answer streaming on the server; on a
/// two-core machine, two of them stall everything. Cancellation does not reach `work`: a
/// cancelled answer is still saved as cancelled.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await run(on: databaseWork, work)
}

private func run<T: Sendable>(on queue: DispatchQueue, _ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        queue.async {
            continuation.resume(with: Result { try work() })
        }
    }
}

/// A `ConversationStore` (SQLite, synchronous) as `ConversationStorage`: every call runs off
/// Swift's task pool, writes one at a time on `databaseWork`, reads side by side.
public struct QueuedConversationStore: ConversationStorage {
    public let store: ConversationStore

    public init(_ store: ConversationStore) {
        self.store = store
    }

    fileprivate func read<T: Sendable>(_ body: @escaping @Sendable (ConversationStore) throws -> T) async throws -> T {
        try await run(on: databaseReads) { [store] in try body(store) }
    }

    fileprivate func write<T: Sendable>(_ body: @escaping @Sendable (ConversationStore) throws -> T) async throws -> T {
        try await run(on: databaseWork) { [store] in try body(store) }
    }

    public func create(_ conversation: Conversation) async throws { try await write { try $0.create(conversation) } }
    public func conversation(id: UUID) async throws -> Conversation? { try await read { try $0.conversation(id: id) } }
    public func conversation(idPrefix: String) async throws -> Conversation { try await read { try $0.conversation(idPrefix: idPrefix) } }
    public func conversations(_ query: ConversationQuery, limit: Int, offset: Int) async throws -> [ConversationSummary] {
        try await read { try $0.conversations(query, limit: limit, offset: offset) }
    }
    public func countConversations(_ query: ConversationQuery) async throws -> Int { try await read { try $0.countConversations(query) } }
    public func latestConversation(source: ConversationSource?) async throws -> Conversation? { try await read { try $0.latestConversation(source: source) } }
    public func setTitle(_ title: String?, for conversationID: UUID) async throws { try await write { try $0.setTitle(title, for: conversationID) } }
    public func setMode(_ mode: ConversationMode, for conversationID: UUID) async throws { try await write { try $0.setMode(mode, for: conversationID) } }
    public func setPersona(_ persona: String, for conversationID: UUID) async throws { try await write { try $0.setPersona(persona, for: conversationID) } }
    public func delete(conversation conversationID: UUID) async throws -> Bool { try await write { try $0.delete(conversation: conversationID) } }
    public func archive(conversationID: UUID) async throws -> ConversationArchive { try await read { try $0.archive(conversationID: conversationID) } }
    public func importArchive(_ archive: ConversationArchive) async throws -> Conversation { try await write { try $0.importArchive(archive) } }
    public func messages(in conversationID: UUID) async throws -> [Message] { try await read { try $0.messages(in: conversationID) } }
    public func message(id: UUID) async throws -> Message? { try await read { try $0.message(id: id) } }
    public func append(_ message: Message) async throws { try await write { try $0.append(message) } }
    public func update(_ message: Message) async throws { try await write { try $0.update(message) } }
    public func saveDrafts(_ drafts: [UUID: String]) async throws { try await write { try $0.saveDrafts(drafts) } }
    public func deleteMessage(id: UUID) async throws -> Bool { try await write { try $0.deleteMessage(id: id) } }
    public func settlePendingAnswers(in conversationID: UUID, reason: String) async throws -> Int {
        // One file, one process writing answers into a conversation at a time (the engine's claim):
        // whatever is still pending there was left by a writer that is gone.
        try await write { _ = try $0.failPendingAnswers(in: conversationID, reason: reason); return 0 }
    }
    public func save(_ persona: Persona) async throws { try await write { try $0.save(persona) } }
    public func persona(named name: String) async throws -> Persona? { try await read { try $0.persona(named: name) } }
    public func personas() async throws -> [Persona] { try await read { try $0.personas() } }
    public func deletePersona(named name: String) async throws -> Bool { try await write { try $0.deletePersona(named: name) } }
    public func log(_ level: LogEntry.Level, _ category: String, _ message: String, detailsJSON: String?) async throws {
        try await write { try $0.log(level, category, message, detailsJSON: detailsJSON) }
    }
    public func logEntries(minimumLevel: LogEntry.Level, since: Date?, until: Date?, operation: String?, matching text: String?, limit: Int?) async throws -> [LogEntry] {
        try await read { try $0.logEntries(minimumLevel: minimumLevel, since: since, until: until, operation: operation, matching: text, limit: limit) }
    }
    public func generatedImages(limit: Int, offset: Int) async throws -> [StoredImageRecord] { try await read { try $0.generatedImages(limit: limit, offset: offset) } }
    public func attachment(id: UUID) async throws -> Attachment? { try await read { try $0.attachment(id: id) } }
    public var changeCount: Int? { store.changeCount }
}

extension QueuedConversationStore: MemoryStorage {
    public func save(_ fact: MemoryFact) async throws { try await write { try $0.save(fact) } }
    public func memoryFacts(status: MemoryFact.Status?) async throws -> [MemoryFact] { try await read { try $0.memoryFacts(status: status) } }
    public func deleteMemoryFact(id: UUID) async throws -> Bool { try await write { try $0.deleteMemoryFact(id: id) } }
    public func memoryRead(conversationID: UUID) async throws -> Date? { try await read { try $0.memoryRead(conversationID: conversationID) } }
    public func setMemoryRead(conversationID: UUID, through: Date) async throws { try await write { try $0.setMemoryRead(conversationID: conversationID, through: through) } }
}
