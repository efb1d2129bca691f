import Foundation
import PostgresNIO
import SibylCore
import TestDatabase
import Testing
@testable import PostgresStorage

/// The memory of `PostgresConversationStore`: what the SQLite store promises, and owners kept apart
/// on the one database every instance shares.
@Suite(
    "Memory in PostgreSQL", .timeLimit(.minutes(10)),
    .enabled(if: TestDatabase.url != nil, "no PostgreSQL to test against (set SIBYL_TEST_DATABASE_URL; scripts/test.sh does)")
)
struct PostgresMemoryStorageTests {
    /// A date with whole milliseconds (all the database keeps), `seconds` after a fixed start.
    static func date(_ seconds: Double) -> Date {
        Date(timeIntervalSince1970: 1_714_566_605.250 + seconds)
    }

    static func fact(_ text: String, _ status: MemoryFact.Status = .proposed, at seconds: Double, from message: Message? = nil) -> MemoryFact {
        MemoryFact(
            text: text, status: status, conversationID: message?.conversationID, messageID: message?.id,
            createdAt: date(seconds), acceptedAt: status == .accepted ? date(seconds + 0.5) : nil
        )
    }

    /// A conversation of `store`'s with one message of the user's, both saved.
    static func conversation(in store: PostgresConversationStore, saying text: String = "I'm vegetarian and I live in Lyon.") async throws -> (Conversation, Message) {
        let conversation = Conversation(id: UUID(), title: "Dinner", persona: "assistant", mode: .chat, source: .web, createdAt: date(0), updatedAt: date(0))
        try await store.create(conversation)
        let message = Message(conversationID: conversation.id, role: .user, text: text, createdAt: date(1))
        try await store.append(message)
        return (conversation, message)
    }

    /// Runs `body` with a store per owner on one fresh migrated database, this process's lease held.
    static func withStores(owners: [String], _ body: ([PostgresConversationStore]) async throws -> Void) async throws {
        try await TestDatabase.withMigrated { database in
            let lease = InstanceLease(database: database)
            try await lease.hold()
            do {
                try await body(owners.map { PostgresConversationStore(database: database, owner: $0, lease: lease) })
            } catch {
                await lease.release()
                throw error
            }
            await lease.release()
        }
    }

    @Test func factsAreSavedListedReplacedAndDeleted() async throws {
        try await Self.withStores(owners: [""]) { stores in
            let store = stores[0]
            #expect(try await store.memoryFacts(status: nil).isEmpty)
            let (_, message) = try await Self.conversation(in: store)
            let oldest = Self.fact("The user is vegetarian.", .accepted, at: 10, from: message)
            var middle = Self.fact("The user lives in Lyon.", .proposed, at: 20, from: message)
            let newest = Self.fact("The user speaks German.", .proposed, at: 30)
            for fact in [oldest, newest, middle] { try await store.save(fact) }

            #expect(try await store.memoryFacts(status: nil) == [newest, middle, oldest])
            #expect(try await store.memoryFacts(status: .proposed) == [newest, middle])
            #expect(try await store.memoryFacts(status: .accepted) == [oldest])

            // Saving the same id again is an edit, not a second fact.
            middle.text = "The user lives in Lyon, France."
            middle.status = .accepted
            middle.acceptedAt = Self.date(40)
            try await store.save(middle)
            #expect(try await store.memoryFacts(status: nil) == [newest, middle, oldest])
            #expect(try await store.memoryFacts(status: .accepted) == [middle, oldest])

            #expect(try await store.deleteMemoryFact(id: newest.id))
            #expect(try await store.deleteMemoryFact(id: newest.id) == false)
            #expect(try await store.deleteMemoryFact(id: UUID()) == false)
            #expect(try await store.memoryFacts(status: nil) == [middle, oldest])
        }
    }

    @Test func aConversationsReadMarkIsSetAndMovedOn() async throws {
        try await Self.withStores(owners: [""]) { stores in
            let store = stores[0]
            let (first, _) = try await Self.conversation(in: store)
            let (second, _) = try await Self.conversation(in: store)
            #expect(try await store.memoryRead(conversationID: first.id) == nil)
            try await store.setMemoryRead(conversationID: first.id, through: Self.date(5))
            #expect(try await store.memoryRead(conversationID: first.id) == Self.date(5))
            #expect(try await store.memoryRead(conversationID: second.id) == nil)
            try await store.setMemoryRead(conversationID: first.id, through: Self.date(9))
            #expect(try await store.memoryRead(conversationID: first.id) == Self.date(9))

            let gone = UUID()
            try await store.setMemoryRead(conversationID: gone, through: Self.date(5))
            #expect(try await store.memoryRead(conversationID: gone) == nil)
        }
    }

    @Test func aFactOutlivesItsConversationAndMessage() async throws {
        try await Self.withStores(owners: ["users/ada"]) { stores in
            let store = stores[0]
            let (doomed, doomedMessage) = try await Self.conversation(in: store)
            let (kept, keptMessage) = try await Self.conversation(in: store, saying: "My daughter Ana turns six in May.")
            let second = Message(conversationID: kept.id, role: .user, text: "I have a border collie.", createdAt: Self.date(2))
            try await store.append(second)
            let orphan = Self.fact("The user is vegetarian.", .accepted, at: 10, from: doomedMessage)
            let linked = Self.fact("The user has a daughter called Ana.", .accepted, at: 20, from: keptMessage)
            let fromDeletedMessage = Self.fact("The user has a border collie.", .proposed, at: 30, from: second)
            for fact in [orphan, linked, fromDeletedMessage] { try await store.save(fact) }
            try await store.setMemoryRead(conversationID: doomed.id, through: Self.date(1))
            try await store.setMemoryRead(conversationID: kept.id, through: Self.date(2))

            #expect(try await store.delete(conversation: doomed.id))
            #expect(try await store.deleteMessage(id: second.id))

            var unlinked = orphan
            unlinked.conversationID = nil
            unlinked.messageID = nil
            var unmessaged = fromDeletedMessage
            unmessaged.messageID = nil
            #expect(try await store.memoryFacts(status: nil) == [unmessaged, linked, unlinked])
            #expect(try await store.memoryRead(conversationID: doomed.id) == nil)
            #expect(try await store.memoryRead(conversationID: kept.id) == Self.date(2))
            let marks = try await store.database.client.query("SELECT count(*) FROM cv_memory_read WHERE conversation_id = \(doomed.id)")
            for try await count in marks.decode(Int.self) { #expect(count == 0, "the read mark went with its conversation") }
        }
    }

    @Test func ownersNeverSeeOrTouchEachOthersMemory() async throws {
        try await Self.withStores(owners: ["users/ada", "users/bo"]) { stores in
            let (ada, bo) = (stores[0], stores[1])
            let (conversation, message) = try await Self.conversation(in: ada)
            let fact = Self.fact("The user is allergic to peanuts.", .accepted, at: 10, from: message)
            try await ada.save(fact)
            try await ada.setMemoryRead(conversationID: conversation.id, through: Self.date(1))

            #expect(try await bo.memoryFacts(status: nil).isEmpty)
            #expect(try await bo.memoryFacts(status: .accepted).isEmpty)
            #expect(try await bo.memoryRead(conversationID: conversation.id) == nil)
            #expect(try await bo.deleteMemoryFact(id: fact.id) == false)
            // Bo can neither move Ada's read mark nor overwrite her fact by its id.
            try await bo.setMemoryRead(conversationID: conversation.id, through: Self.date(99))
            var hijacked = fact
            hijacked.text = "The user likes peanuts."
            hijacked.status = .proposed
            hijacked.acceptedAt = nil
            try await bo.save(hijacked)
            #expect(try await bo.memoryFacts(status: nil).isEmpty)
            #expect(try await ada.memoryFacts(status: nil) == [fact])
            #expect(try await ada.memoryRead(conversationID: conversation.id) == Self.date(1))

            // Bo's own memory is Bo's alone.
            let (boConversation, boMessage) = try await Self.conversation(in: bo, saying: "I work as a nurse.")
            let boFact = Self.fact("The user works as a nurse.", .proposed, at: 20, from: boMessage)
            try await bo.save(boFact)
            try await bo.setMemoryRead(conversationID: boConversation.id, through: Self.date(1))
            #expect(try await bo.memoryFacts(status: nil) == [boFact])
            #expect(try await ada.memoryFacts(status: nil) == [fact])
            #expect(try await ada.deleteMemoryFact(id: boFact.id) == false)
            #expect(try await ada.memoryRead(conversationID: boConversation.id) == nil)
        }
    }

    @Test func removingAnOwnersEverythingRemovesTheirMemoryOnly() async throws {
        try await Self.withStores(owners: ["users/ada", "users/bo", "users/cy"]) { stores in
            let (ada, bo, cy) = (stores[0], stores[1], stores[2])
            let (adaConversation, adaMessage) = try await Self.conversation(in: ada)
            try await ada.save(Self.fact("The user is vegetarian.", .accepted, at: 10, from: adaMessage))
            try await ada.save(Self.fact("The user has two cats.", .proposed, at: 11))
            try await ada.setMemoryRead(conversationID: adaConversation.id, through: Self.date(1))
            let (boConversation, boMessage) = try await Self.conversation(in: bo, saying: "I drive a 2014 Prius.")
            let boFact = Self.fact("The user drives a 2014 Toyota Prius.", .accepted, at: 12, from: boMessage)
            try await bo.save(boFact)
            try await bo.setMemoryRead(conversationID: boConversation.id, through: Self.date(1))
            // An owner with nothing but a fact they wrote is an owner all the same.
            let cyFact = Self.fact("The user is learning Korean.", .accepted, at: 13)
            try await cy.save(cyFact)
            #expect(try await PostgresConversationStore.owners(in: ada.database) == ["users/ada", "users/bo", "users/cy"])

            try await ada.removeEverything()
            try await cy.removeEverything()
            #expect(try await ada.memoryFacts(status: nil).isEmpty)
            #expect(try await ada.memoryRead(conversationID: adaConversation.id) == nil)
            #expect(try await cy.memoryFacts(status: nil).isEmpty)
            #expect(try await bo.memoryFacts(status: nil) == [boFact])
            #expect(try await bo.memoryRead(conversationID: boConversation.id) == Self.date(1))
            #expect(try await PostgresConversationStore.owners(in: ada.database) == ["users/bo"])
        }
    }

    @Test func forgettingAFactTakesItFromTheAnswersThatCitedItAndNoOneElses() async throws {
        try await Self.withStores(owners: ["ada", "bo"]) { stores in
            let (ada, bo) = (stores[0], stores[1])
            let fact = Self.fact("The user is vegetarian.", .accepted, at: 10)
            try await ada.save(fact)
            let passage = Citation(number: 1, documentTitle: "Cookbook", documentPath: "cookbook.md", page: nil, headingPath: [], quote: "Lentils.", score: 0.7)
            var answers: [Message] = []
            for store in [ada, bo] {
                let (conversation, _) = try await Self.conversation(in: store)
                let answer = Message(
                    conversationID: conversation.id, role: .assistant, text: "As a vegetarian, try lentils [1].",
                    citations: [passage, .remembered(fact, number: 2, score: 0.4)], createdAt: Self.date(2)
                )
                try await store.append(answer)
                answers.append(answer)
            }
            let updated = try #require(try await ada.conversation(id: answers[0].conversationID)).updatedAt
            #expect(try await bo.deleteMemoryFact(id: fact.id) == false, "not Bo's to forget")
            #expect(try await ada.deleteMemoryFact(id: fact.id))
            #expect(try await ada.messages(in: answers[0].conversationID).last?.citations == [passage])
            #expect(try #require(try await ada.conversation(id: answers[0].conversationID)).updatedAt == updated, "forgetting says nothing new in the conversation")
            // Bo's message that (by whatever means) named the same id is Bo's: untouched.
            #expect(try await bo.messages(in: answers[1].conversationID).last?.citations.count == 2)
        }
    }

    @Test func aDatabaseFromBeforeMemoryGetsItWithItsConversationsKept() async throws {
        try await TestDatabase.with { url in
            try await PostgresDatabase.with(url: url) { database in
                let before = PostgresDatabase.schema.filter { $0.version < 8 }
                #expect(try await database.migrate(before) == before.map(\.version))
                let lease = InstanceLease(database: database)
                try await lease.hold()
                let store = PostgresConversationStore(database: database, owner: "", lease: lease)
                do {
                    let (conversation, message) = try await Self.conversation(in: store)
                    #expect(try await database.migrate().contains(8))
                    let fact = Self.fact("The user lives in Lyon.", .proposed, at: 10, from: message)
                    try await store.save(fact)
                    try await store.setMemoryRead(conversationID: conversation.id, through: Self.date(1))
                    #expect(try await store.memoryFacts(status: nil) == [fact])
                    #expect(try await store.memoryRead(conversationID: conversation.id) == Self.date(1))
                    #expect(try await store.messages(in: conversation.id) == [message])
                } catch {
                    await lease.release()
                    throw error
                }
                await lease.release()
            }
        }
    }
}
