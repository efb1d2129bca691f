import Foundation
import SibylCore
import Testing
@testable import Storage

@Suite("Conversations", .timeLimit(.minutes(10)))
struct ConversationTests {
    @Test("A created conversation reads back as it was")
    func createAndRead() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Conversation(
            title: "Lisbon trip", persona: "travel-agent", mode: .translator(target: "pt"), source: .glasses,
            createdAt: Sample.start, updatedAt: Sample.date(60)
        )
        try store.create(conversation)
        #expect(try store.conversation(id: conversation.id) == conversation)
        #expect(try store.conversation(id: UUID()) == nil)
        #expect(throws: StorageError.conversationExists(conversation.id)) { try store.create(conversation) }
    }

    @Test("Listings are newest first, with message counts and one-line previews")
    func listing() throws {
        let store = try ConversationStore.inMemory()
        let old = Sample.conversation(title: "old", source: .web, updatedAt: Sample.date(10))
        let middle = Sample.conversation(title: "middle", source: .cli, updatedAt: Sample.date(20))
        let empty = Sample.conversation(title: "empty", source: .web, updatedAt: Sample.date(5))
        for conversation in [old, middle, empty] { try store.create(conversation) }
        try store.append(Message(conversationID: old.id, role: .user, text: "first"))
        let long = String(repeating: "word ", count: 40) + "\nlast line"
        try store.append(Message(conversationID: old.id, role: .assistant, text: "line one\n\n  line   two"))
        try store.append(Message(conversationID: middle.id, role: .user, text: long))
        // An empty pending answer must not blank the preview.
        try store.append(Message(conversationID: middle.id, role: .assistant, text: "", status: .pending))

        let all = try store.conversations()
        // Appending bumps updatedAt to now, so the two with messages come first, most recent append first.
        #expect(all.map(\.conversation.title) == ["middle", "old", "empty"])
        #expect(all.map(\.messageCount) == [2, 2, 0])
        #expect(all[1].preview == "line one line two")
        #expect(all[2].preview == nil)
        let preview = try #require(all[0].preview)
        #expect(preview.count == ConversationSummary.previewLength)
        #expect(preview.hasSuffix("…"))
        #expect(!preview.contains("\n"))

        #expect(try store.conversations(source: .web).map(\.conversation.title) == ["old", "empty"])
        #expect(try store.conversations(limit: 1).map(\.conversation.title) == ["middle"])
        #expect(try store.conversations(limit: 0).isEmpty)
        #expect(try store.latestConversation()?.id == middle.id)
        #expect(try store.latestConversation(source: .web)?.id == old.id)
        #expect(try store.latestConversation(source: .glasses) == nil)
    }

    @Test("Title, mode and persona changes are kept; unknown ids are reported")
    func metadataEdits() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Sample.conversation()
        try store.create(conversation)
        try store.setTitle("  Renamed  ", for: conversation.id)
        try store.setMode(.translator(target: "de"), for: conversation.id)
        try store.setPersona("pirate", for: conversation.id)
        var stored = try #require(try store.conversation(id: conversation.id))
        #expect(stored.title == "Renamed")
        #expect(stored.mode == .translator(target: "de"))
        #expect(stored.persona == "pirate")
        #expect(stored.updatedAt == conversation.updatedAt, "renames must not reorder listings")

        try store.setTitle("   ", for: conversation.id)
        stored = try #require(try store.conversation(id: conversation.id))
        #expect(stored.title == nil)

        let unknown = UUID()
        #expect(throws: StorageError.notFound(unknown.uuidString.lowercased())) { try store.setTitle("x", for: unknown) }
        #expect(throws: StorageError.notFound(unknown.uuidString.lowercased())) { try store.setMode(.chat, for: unknown) }
    }

    @Test("Conversations are found by the first characters of their id")
    func prefixLookup() throws {
        let store = try ConversationStore.inMemory()
        let first = Sample.conversation(id: UUID(uuidString: "ABCD1234-0000-4000-8000-000000000001")!, title: "first", updatedAt: Sample.date(1))
        let second = Sample.conversation(id: UUID(uuidString: "ABCD5678-0000-4000-8000-000000000002")!, title: "second", updatedAt: Sample.date(2))
        try store.create(first)
        try store.create(second)

        #expect(try store.conversation(idPrefix: "abcd1234").id == first.id)
        #expect(try store.conversation(idPrefix: "ABCD5678").id == second.id)
        #expect(try store.conversation(idPrefix: " abcd5 ").id == second.id)
        #expect(try store.conversation(idPrefix: "abcd1234-0000-4").id == first.id)
        #expect(try store.conversation(idPrefix: "abcd12340000").id == first.id, "hyphens may be left out")
        #expect(try store.conversation(idPrefix: first.id.uuidString).id == first.id)

        #expect(throws: StorageError.ambiguous("abcd", [second, first])) { try store.conversation(idPrefix: "abcd") }
        #expect(throws: StorageError.notFound("ab12")) { try store.conversation(idPrefix: "ab12") }
        #expect(throws: StorageError.invalidIDPrefix("trip")) { try store.conversation(idPrefix: "trip") }
        #expect(throws: StorageError.invalidIDPrefix("")) { try store.conversation(idPrefix: "") }
    }

    @Test("Errors say what to do next")
    func errorMessages() {
        let notFound = StorageError.notFound("ab12").errorDescription ?? ""
        #expect(notFound == "No conversation matches 'ab12'.")
        #expect(StorageError.notFound("ab12").remedy == .listConversations, "each shell says how to list them its own way")
        let candidates = [Sample.conversation(title: "Trip"), Sample.conversation(title: nil)]
        let ambiguous = StorageError.ambiguous("a", candidates).errorDescription ?? ""
        #expect(ambiguous.contains("2 conversations"))
        #expect(ambiguous.contains("(Trip)"))
        #expect(ambiguous.contains("Type more characters"))
        #expect(StorageError.unsupportedArchiveVersion(7).errorDescription?.contains("Update Sibyl") == true)
    }
}
