import Foundation
import GRDB
import SibylCore
import Testing
@testable import Storage

/// How a test reaches the memory of a SQLite store: the synchronous `ConversationStore` itself, or
/// `QueuedConversationStore`, which is what the app hands out as `MemoryStorage`.
enum MemoryAccess: String, CaseIterable, CustomStringConvertible, Sendable {
    case direct
    case queued

    var description: String { rawValue }

    func memory(of store: ConversationStore) -> any MemoryStorage {
        switch self {
        case .direct: DirectMemory(store: store)
        case .queued: QueuedConversationStore(store)
        }
    }
}

/// `ConversationStore`'s synchronous memory calls, one for one, so both ways in share the tests.
private struct DirectMemory: MemoryStorage {
    let store: ConversationStore

    func save(_ fact: MemoryFact) async throws { try store.save(fact) }
    func memoryFacts(status: MemoryFact.Status?) async throws -> [MemoryFact] { try store.memoryFacts(status: status) }
    func deleteMemoryFact(id: UUID) async throws -> Bool { try store.deleteMemoryFact(id: id) }
    func memoryRead(conversationID: UUID) async throws -> Date? { try store.memoryRead(conversationID: conversationID) }
    func setMemoryRead(conversationID: UUID, through: Date) async throws { try store.setMemoryRead(conversationID: conversationID, through: through) }
}

/// Facts with whole-millisecond dates (what the store keeps), so reads compare equal.
enum MemorySample {
    static func fact(_ text: String, _ status: MemoryFact.Status = .proposed, at seconds: Double, from message: Message? = nil) -> MemoryFact {
        MemoryFact(
            text: text, status: status, conversationID: message?.conversationID, messageID: message?.id,
            createdAt: Sample.date(seconds), acceptedAt: status == .accepted ? Sample.date(seconds + 0.5) : nil
        )
    }
}

@Suite("Memory in the SQLite store", .timeLimit(.minutes(10)))
struct MemoryStorageTests {
    @Test(arguments: MemoryAccess.allCases)
    func factsAreListedNewestFirstAndFilteredByStatus(_ access: MemoryAccess) async throws {
        let file = try ConversationStore.inMemory()
        let memory = access.memory(of: file)
        #expect(try await memory.memoryFacts(status: nil).isEmpty)

        let conversation = try Sample.filledStore(file)
        let source = try file.messages(in: conversation.id)[1]
        let oldest = MemorySample.fact("The user is vegetarian.", .accepted, at: 10, from: source)
        let newest = MemorySample.fact("The user lives in Lyon.", .proposed, at: 30)
        let middle = MemorySample.fact("The user has two cats.", .proposed, at: 20, from: source)
        for fact in [oldest, newest, middle] { try await memory.save(fact) }

        // Everything read back as written, links and dates included.
        #expect(try await memory.memoryFacts(status: nil) == [newest, middle, oldest])
        #expect(try await memory.memoryFacts(status: .proposed) == [newest, middle])
        #expect(try await memory.memoryFacts(status: .accepted) == [oldest])
        let stored = try #require(try await memory.memoryFacts(status: .accepted).first)
        #expect(stored.conversationID == conversation.id && stored.messageID == source.id)
        #expect(stored.acceptedAt == Sample.date(10.5))
    }

    @Test(arguments: MemoryAccess.allCases)
    func savingTheSameIDAgainReplacesTheFact(_ access: MemoryAccess) async throws {
        let file = try ConversationStore.inMemory()
        let memory = access.memory(of: file)
        let conversation = try Sample.filledStore(file)
        let source = try file.messages(in: conversation.id)[3]
        let other = MemorySample.fact("The user speaks German.", at: 5)
        var fact = MemorySample.fact("The user has a dog.", at: 10, from: source)
        try await memory.save(other)
        try await memory.save(fact)

        // The user accepts it with their own wording: still one fact, now accepted.
        fact.text = "The user has a border collie called Miso."
        fact.status = .accepted
        fact.acceptedAt = Sample.date(60)
        try await memory.save(fact)
        #expect(try await memory.memoryFacts(status: nil) == [fact, other])
        #expect(try await memory.memoryFacts(status: .proposed) == [other])

        // And back: a fact can be un-accepted, its acceptance date cleared.
        fact.status = .proposed
        fact.acceptedAt = nil
        try await memory.save(fact)
        #expect(try await memory.memoryFacts(status: .accepted).isEmpty)
        #expect(try await memory.memoryFacts(status: nil) == [fact, other])
    }

    @Test(arguments: MemoryAccess.allCases)
    func deletingAFactSaysWhetherThereWasOne(_ access: MemoryAccess) async throws {
        let memory = access.memory(of: try ConversationStore.inMemory())
        let kept = MemorySample.fact("The user is a nurse.", at: 1)
        let forgotten = MemorySample.fact("The user is learning Korean.", .accepted, at: 2)
        try await memory.save(kept)
        try await memory.save(forgotten)

        #expect(try await memory.deleteMemoryFact(id: forgotten.id))
        #expect(try await memory.deleteMemoryFact(id: forgotten.id) == false)
        #expect(try await memory.deleteMemoryFact(id: UUID()) == false)
        #expect(try await memory.memoryFacts(status: nil) == [kept])
    }

    @Test(arguments: MemoryAccess.allCases)
    func aConversationsReadMarkIsSetAndMovedOn(_ access: MemoryAccess) async throws {
        let file = try ConversationStore.inMemory()
        let memory = access.memory(of: file)
        let first = try Sample.filledStore(file)
        let second = Sample.conversation()
        try file.create(second)

        #expect(try await memory.memoryRead(conversationID: first.id) == nil)
        try await memory.setMemoryRead(conversationID: first.id, through: Sample.date(5))
        #expect(try await memory.memoryRead(conversationID: first.id) == Sample.date(5))
        #expect(try await memory.memoryRead(conversationID: second.id) == nil, "one conversation's mark is not another's")

        try await memory.setMemoryRead(conversationID: first.id, through: Sample.date(9))
        #expect(try await memory.memoryRead(conversationID: first.id) == Sample.date(9))

        // A conversation that is not there (deleted meanwhile) gets no mark, and no error.
        let gone = UUID()
        try await memory.setMemoryRead(conversationID: gone, through: Sample.date(5))
        #expect(try await memory.memoryRead(conversationID: gone) == nil)
    }

    @Test(arguments: MemoryAccess.allCases)
    func aFactOutlivesTheConversationItCameFrom(_ access: MemoryAccess) async throws {
        let file = try ConversationStore.inMemory()
        let memory = access.memory(of: file)
        let doomed = try Sample.filledStore(file)
        let survivor = Sample.conversation(title: "Recipes")
        try file.create(survivor)
        let survivorMessage = Message(conversationID: survivor.id, role: .user, text: "I'm vegetarian.", createdAt: Sample.date(7))
        try file.append(survivorMessage)

        let doomedMessage = try file.messages(in: doomed.id)[3]
        let orphan = MemorySample.fact("The user cares about the weather.", .accepted, at: 10, from: doomedMessage)
        let linked = MemorySample.fact("The user is vegetarian.", .accepted, at: 20, from: survivorMessage)
        try await memory.save(orphan)
        try await memory.save(linked)
        try await memory.setMemoryRead(conversationID: doomed.id, through: Sample.date(5))
        try await memory.setMemoryRead(conversationID: survivor.id, through: Sample.date(7))

        #expect(try file.delete(conversation: doomed.id))

        var unlinked = orphan
        unlinked.conversationID = nil
        unlinked.messageID = nil
        #expect(try await memory.memoryFacts(status: nil) == [linked, unlinked])
        #expect(try await memory.memoryRead(conversationID: doomed.id) == nil)
        #expect(try await memory.memoryRead(conversationID: survivor.id) == Sample.date(7))
        // The read mark went with its conversation: no row is left pointing at nothing.
        let marks = try file.read { db in try String.fetchAll(db, sql: "SELECT conversation_id FROM memory_read") }
        #expect(marks == [survivor.id.uuidString.lowercased()])
    }

    @Test(arguments: MemoryAccess.allCases)
    func deletingTheSourceMessageKeepsTheFactAndItsConversation(_ access: MemoryAccess) async throws {
        let file = try ConversationStore.inMemory()
        let memory = access.memory(of: file)
        let conversation = try Sample.filledStore(file)
        let message = try file.messages(in: conversation.id)[1]
        let fact = MemorySample.fact("The user takes photos of lighthouses.", at: 10, from: message)
        try await memory.save(fact)

        #expect(try file.deleteMessage(id: message.id))
        var kept = fact
        kept.messageID = nil
        #expect(try await memory.memoryFacts(status: nil) == [kept])
    }

    @Test func factsAndReadMarksSurviveReopeningTheFile() async throws {
        let directory = try TemporaryDirectory()
        let conversation: Conversation
        let facts: [MemoryFact]
        do {
            let store = try directory.openStore()
            conversation = try Sample.filledStore(store)
            let message = try store.messages(in: conversation.id)[1]
            facts = [
                MemorySample.fact("The user owns a camera.", .accepted, at: 20, from: message),
                MemorySample.fact("The user writes their own facts.", .proposed, at: 10),
            ]
            for fact in facts { try store.save(fact) }
            try store.setMemoryRead(conversationID: conversation.id, through: Sample.date(5))
            try store.close()
        }
        for access in MemoryAccess.allCases {
            let store = try directory.openStore()
            let memory = access.memory(of: store)
            #expect(try await memory.memoryFacts(status: nil) == facts, "\(access)")
            #expect(try await memory.memoryRead(conversationID: conversation.id) == Sample.date(5), "\(access)")
            try store.close()
        }
    }

    @Test func aDatabaseFromBeforeMemoryGetsItOnOpening() throws {
        let directory = try TemporaryDirectory()
        let conversationID = UUID()
        let messageID = UUID()
        do {
            try FileManager.default.createDirectory(
                atPath: (directory.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true
            )
            let old = try DatabaseQueue(path: directory.databasePath)
            try Schema.migrator.migrate(old, upTo: "v4")
            try old.write { db in
                #expect(try db.tableExists("memory_fact") == false)
                try db.execute(
                    sql: """
                        INSERT INTO conversation (id, title, persona, mode, source, created_at, updated_at)
                        VALUES (?, 'Old', 'assistant', 'chat', 'cli', 0, 0)
                        """,
                    arguments: [conversationID.uuidString.lowercased()]
                )
                try db.execute(
                    sql: "INSERT INTO message (id, conversation_id, position, role, text, status, created_at) VALUES (?, ?, 0, 'user', 'I live in Oslo.', 'complete', 0)",
                    arguments: [messageID.uuidString.lowercased(), conversationID.uuidString.lowercased()]
                )
            }
            try old.close()
        }

        let store = try directory.openStore()
        #expect(try store.conversation(id: conversationID)?.title == "Old")
        #expect(try store.memoryFacts(status: nil).isEmpty)
        #expect(try store.memoryRead(conversationID: conversationID) == nil)
        // The new tables link to what was there before them.
        let fact = MemoryFact(text: "The user lives in Oslo.", status: .proposed, conversationID: conversationID, messageID: messageID, createdAt: Sample.date(1))
        try store.save(fact)
        try store.setMemoryRead(conversationID: conversationID, through: Sample.date(0))
        #expect(try store.memoryFacts(status: nil) == [fact])
        #expect(try store.memoryRead(conversationID: conversationID) == Sample.date(0))
        try store.close()

        let probe = try DatabaseQueue(path: directory.databasePath)
        let migrations = try probe.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations ORDER BY identifier") }
        #expect(migrations == ["v1", "v2", "v3", "v4", "v5"])
        try probe.close()
    }
}
