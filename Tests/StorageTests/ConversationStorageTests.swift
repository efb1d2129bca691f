import Foundation
import PostgresStorage
import SibylCore
import Storage
import TestDatabase
import SibylTestSupport
import Testing

/// What every conversation back end promises (`ConversationStorage`), run on each: the SQLite file
/// of a data directory and the PostgreSQL several `sibyl serve` instances share.
@Suite("Conversation storage, on every back end", .timeLimit(.minutes(10)))
struct ConversationStorageTests {
    @Test(arguments: ConversationBackend.available)
    func conversationsAreCreatedFoundListedAndChanged(_ backend: ConversationBackend) async throws {
        try await backend.with { store in
            let first = Sample.conversation(title: "Trip planning", source: .cli, updatedAt: Sample.date(1))
            let second = Sample.conversation(title: "Recipes", source: .web, updatedAt: Sample.date(2))
            try await store.create(first)
            try await store.create(second)
            await #expect(throws: StorageError.conversationExists(first.id)) { try await store.create(first) }
            #expect(try await store.conversation(id: first.id) == first)
            #expect(try await store.conversation(id: UUID()) == nil)

            // By the first characters of the id, as listings show them.
            let prefix = String(first.id.uuidString.prefix(8))
            #expect(try await store.conversation(idPrefix: prefix.lowercased()) == first)
            await #expect(throws: StorageError.invalidIDPrefix("xyz")) { try await store.conversation(idPrefix: "xyz") }
            let absent = String(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12))
            await #expect(throws: StorageError.notFound(absent)) { try await store.conversation(idPrefix: absent) }

            // Newest activity first; a filter by source and by text in titles or messages.
            #expect(try await store.conversations(ConversationQuery(), limit: 10, offset: 0).map(\.id) == [second.id, first.id])
            #expect(try await store.conversations(ConversationQuery(), limit: 1, offset: 1).map(\.id) == [first.id])
            #expect(try await store.conversations(ConversationQuery(source: .web), limit: 10, offset: 0).map(\.id) == [second.id])
            #expect(try await store.countConversations(ConversationQuery(source: .cli)) == 1)
            try await store.append(Message(conversationID: first.id, role: .user, text: "Which 100% cotton_shirt\nfits?", createdAt: Sample.date(3)))
            #expect(try await store.conversations(ConversationQuery(matching: "COTTON_shirt"), limit: 10, offset: 0).map(\.id) == [first.id])
            #expect(try await store.conversations(ConversationQuery(matching: "100%"), limit: 10, offset: 0).map(\.id) == [first.id])
            #expect(try await store.countConversations(ConversationQuery(matching: "recipes")) == 1)
            #expect(try await store.countConversations(ConversationQuery(matching: "10_%")) == 0)
            // The append moved the first conversation to the top, with its count and preview.
            let listed = try await store.conversations(ConversationQuery(), limit: 10, offset: 0)
            #expect(listed.map(\.id) == [first.id, second.id])
            #expect(listed[0].messageCount == 1)
            #expect(listed[0].preview == "Which 100% cotton_shirt fits?")
            #expect(try await store.latestConversation(source: .web)?.id == second.id)

            try await store.setTitle("  ", for: first.id)
            try await store.setMode(.translator(target: "German"), for: first.id)
            try await store.setPersona("concise", for: first.id)
            let changed = try #require(try await store.conversation(id: first.id))
            #expect(changed.title == nil && changed.mode == .translator(target: "German") && changed.persona == "concise")
            let unknown = UUID()
            await #expect(throws: StorageError.notFound(unknown.uuidString.lowercased())) { try await store.setTitle("x", for: unknown) }

            #expect(try await store.delete(conversation: first.id))
            #expect(try await store.delete(conversation: first.id) == false)
            await #expect(throws: StorageError.notFound(first.id.uuidString.lowercased())) { try await store.messages(in: first.id) }
        }
    }

    @Test(arguments: ConversationBackend.available)
    func messagesKeepEverythingTheyCarry(_ backend: ConversationBackend) async throws {
        try await backend.with { store in
            let conversation = Sample.conversation()
            try await store.create(conversation)
            let messages = Sample.messages(in: conversation.id)
            for message in messages { try await store.append(message) }
            #expect(try await store.messages(in: conversation.id) == messages)
            #expect(try await store.message(id: messages[1].id) == messages[1])
            #expect(try await store.message(id: UUID()) == nil)
            await #expect(throws: StorageError.messageExists(messages[0].id)) { try await store.append(messages[0]) }
            await #expect(throws: (any Error).self) { try await store.append(Message(conversationID: UUID(), role: .user, text: "lost")) }

            // Attachments: one kept, one replaced, one added, one removed, reordered.
            var changed = messages[1]
            let kept = changed.attachments[0]
            let replacement = Sample.image(bytes: 128, filename: "other.png")
            changed.attachments = [replacement, kept]
            changed.text = "What is in these pictures?"
            try await store.update(changed)
            #expect(try await store.message(id: changed.id) == changed)
            #expect(try await store.attachment(id: messages[1].attachments[1].id) == nil)
            #expect(try await store.attachment(id: kept.id) == kept)
            await #expect(throws: StorageError.messageNotFound(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!)) {
                try await store.update(Message(id: UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, conversationID: conversation.id, role: .user, text: "?"))
            }

            // Drafts change only answers still pending.
            let pending = Message(conversationID: conversation.id, role: .assistant, text: "", status: .pending)
            try await store.append(pending)
            try await store.saveDrafts([pending.id: "Half an ans", messages[2].id: "overwritten?"])
            #expect(try await store.message(id: pending.id)?.text == "Half an ans")
            #expect(try await store.message(id: messages[2].id)?.text == messages[2].text)

            #expect(try await store.deleteMessage(id: messages[0].id))
            #expect(try await store.deleteMessage(id: messages[0].id) == false)
            #expect(try await store.messages(in: conversation.id).count == messages.count)
        }
    }

    @Test(arguments: ConversationBackend.available)
    func aPendingAnswerOfThisProcessIsSettledWhenItsConversationIsNextUsed(_ backend: ConversationBackend) async throws {
        try await backend.with { store in
            let conversation = Sample.conversation()
            try await store.create(conversation)
            let answer = Message(conversationID: conversation.id, role: .assistant, text: "Part", status: .pending)
            try await store.append(answer)
            #expect(try await store.settlePendingAnswers(in: conversation.id, reason: "interrupted") == 0)
            let settled = try #require(try await store.message(id: answer.id))
            #expect(settled.status == .failed && settled.error == "interrupted" && settled.text == "Part")
        }
    }

    @Test(arguments: ConversationBackend.available)
    func archivesRoundTripAndImportsNeverOverwrite(_ backend: ConversationBackend) async throws {
        try await backend.with { store in
            let conversation = Sample.conversation()
            try await store.create(conversation)
            let messages = Sample.messages(in: conversation.id)
            for message in messages { try await store.append(message) }
            let data = try await store.exportJSON(conversationID: conversation.id)
            let markdown = try await store.exportMarkdown(conversationID: conversation.id)
            #expect(markdown.contains("# Trip planning") && markdown.contains("A lighthouse at dusk."))

            // Importing into the same store: every id is taken, so everything gets fresh ones.
            let copy = try await store.importJSON(data)
            #expect(copy.id != conversation.id)
            let copied = try await store.messages(in: copy.id)
            #expect(copied.map(\.text) == messages.map(\.text))
            #expect(Set(copied.map(\.id)).isDisjoint(with: messages.map(\.id)))
            #expect(copied[1].attachments.map(\.data) == messages[1].attachments.map(\.data))

            // After the original is gone, its ids are free again and are kept.
            try await store.delete(conversation: conversation.id)
            let restored = try await store.importJSON(data)
            #expect(restored.id == conversation.id)
            #expect(try await store.messages(in: conversation.id) == messages)
            await #expect(throws: StorageError.self) { try await store.importJSON(Data("{}".utf8)) }
        }
    }

    @Test(arguments: ConversationBackend.available)
    func personasLogsAndImages(_ backend: ConversationBackend) async throws {
        try await backend.with { store in
            try await store.save(Persona(name: " Pirate ", systemPrompt: "Arr.", model: "m", sampling: Sampling(temperature: 0.5), summary: "talks like one"))
            try await store.save(Persona(name: "PIRATE", systemPrompt: "Arr!"))
            try await store.save(Persona(name: "anchor", systemPrompt: "Steady."))
            let sampling = Sampling(temperature: 0.7, maxTokens: 300, topP: 0.85, presencePenalty: -0.5, frequencyPenalty: 1.25)
            try await store.save(Persona(name: "tuned", systemPrompt: "Sample so.", model: "m2", sampling: sampling))
            #expect(try await store.persona(named: "tuned")?.sampling == sampling)
            #expect(try await store.persona(named: "anchor")?.sampling == Sampling())
            #expect(try await store.deletePersona(named: "tuned"))
            #expect(try await store.personas().map(\.name) == ["anchor", "PIRATE"])
            #expect(try await store.persona(named: "pirate")?.systemPrompt == "Arr!")
            await #expect(throws: StorageError.invalidPersonaName(" ")) { try await store.save(Persona(name: " ", systemPrompt: "x")) }
            #expect(try await store.deletePersona(named: "Pirate"))
            #expect(try await store.deletePersona(named: "Pirate") == false)

            try await store.log(.debug, "docs.add", "added a.md", detailsJSON: nil)
            try await store.log(.error, "ask", "failed with key sk-abcdefghijklmnopqrstuvwx", detailsJSON: #"{"key":"sk-abcdefghijklmnopqrstuvwx"}"#)
            try await store.log(.info, "docs", "listed", detailsJSON: nil)
            let all = try await store.logEntries(minimumLevel: .debug, since: nil, until: nil, operation: nil, matching: nil, limit: nil)
            #expect(all.map(\.category) == ["docs.add", "ask", "docs"])
            #expect(all.allSatisfy { !$0.message.contains("sk-abcdefghij") && !($0.details ?? "").contains("sk-abcdefghij") })
            #expect(try await store.logEntries(minimumLevel: .info, since: nil, until: nil, operation: nil, matching: nil, limit: nil).map(\.category) == ["ask", "docs"])
            #expect(try await store.logEntries(minimumLevel: .debug, since: nil, until: nil, operation: "docs", matching: nil, limit: nil).map(\.category) == ["docs.add", "docs"])
            #expect(try await store.logEntries(minimumLevel: .debug, since: nil, until: nil, operation: nil, matching: "ADDED", limit: nil).map(\.category) == ["docs.add"])
            #expect(try await store.logEntries(minimumLevel: .debug, since: nil, until: nil, operation: nil, matching: nil, limit: 1).map(\.category) == ["docs"])
            #expect(try await store.logEntries(minimumLevel: .debug, since: Date().addingTimeInterval(60), until: nil, operation: nil, matching: nil, limit: nil).isEmpty)

            let conversation = Sample.conversation()
            try await store.create(conversation)
            try await store.append(Message(conversationID: conversation.id, role: .user, text: "Draw a cat", createdAt: Sample.date(1)))
            let drawn = Sample.image(bytes: 2048, filename: "cat.png")
            try await store.append(Message(conversationID: conversation.id, role: .assistant, text: "", attachments: [drawn], createdAt: Sample.date(2)))
            let images = try await store.generatedImages(limit: 10, offset: 0)
            #expect(images.count == 1)
            #expect(images.first?.attachment.id == drawn.id && images.first?.prompt == "Draw a cat" && images.first?.byteCount == 2048)
            #expect(try await store.attachment(id: drawn.id)?.data == drawn.data)

            // Listed by kind: those with drawn images, and the others (a person's photo is not drawn).
            let photo = Sample.conversation()
            try await store.create(photo)
            try await store.append(Message(conversationID: photo.id, role: .user, text: "What is this?", attachments: [Sample.image(bytes: 64, filename: "me.jpg")], createdAt: Sample.date(3)))
            let ids = { (drawn: Bool?) async throws -> [UUID] in try await store.conversations(ConversationQuery(drawn: drawn), limit: 10, offset: 0).map(\.conversation.id) }
            #expect(try await ids(true) == [conversation.id])
            #expect(try await ids(false) == [photo.id])
            #expect(Set(try await ids(nil)) == [conversation.id, photo.id])
            #expect(try await store.countConversations(ConversationQuery(drawn: true)) == 1)
        }
    }

    @Test(arguments: ConversationBackend.available)
    func appendsFromManyTasksAtOnceAllLandInOrder(_ backend: ConversationBackend) async throws {
        try await backend.with { store in
            let conversation = Sample.conversation()
            try await store.create(conversation)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<40 {
                    group.addTask { try await store.append(Message(conversationID: conversation.id, role: .user, text: "m\(index)")) }
                }
                try await group.waitForAll()
            }
            let texts = try await store.messages(in: conversation.id).map(\.text)
            #expect(texts.count == 40 && Set(texts).count == 40)
        }
    }
}

/// What only the shared database has to promise: owners kept apart, and answers of live writers
/// left alone while those of dead ones are marked failed.
@Suite("Conversations in PostgreSQL", .timeLimit(.minutes(10)))
struct PostgresConversationStoreTests {
    @Test(.enabled(if: TestDatabase.url != nil)) func ownersNeverSeeEachOthersConversations() async throws {
        try await TestDatabase.withMigrated { database in
            let lease = InstanceLease(database: database)
            try await lease.hold()
            let ada = PostgresConversationStore(database: database, owner: "users/ada", lease: lease)
            let bo = PostgresConversationStore(database: database, owner: "users/bo", lease: lease)
            let conversation = Sample.conversation()
            try await ada.create(conversation)
            let message = Message(conversationID: conversation.id, role: .user, text: "secret", attachments: [Sample.image()])
            try await ada.append(message)
            try await ada.save(Persona(name: "mine", systemPrompt: "x"))
            try await ada.log(.info, "ask", "asked", detailsJSON: nil)
            #expect(try await bo.conversation(id: conversation.id) == nil)
            #expect(try await bo.countConversations(ConversationQuery()) == 0)
            #expect(try await bo.message(id: message.id) == nil)
            #expect(try await bo.attachment(id: message.attachments[0].id) == nil)
            #expect(try await bo.personas().isEmpty)
            #expect(try await bo.logEntries(minimumLevel: .debug, since: nil, until: nil, operation: nil, matching: nil, limit: nil).isEmpty)
            await #expect(throws: (any Error).self) { try await bo.append(Message(conversationID: conversation.id, role: .user, text: "intrude")) }
            #expect(try await bo.delete(conversation: conversation.id) == false)
            #expect(try await bo.deleteMessage(id: message.id) == false)

            try await ada.removeEverything()
            #expect(try await ada.countConversations(ConversationQuery()) == 0)
            #expect(try await ada.personas().isEmpty)
            await lease.release()
        }
    }

    @Test(.enabled(if: TestDatabase.url != nil)) func onlyAnswersOfDeadWritersAreMarkedFailed() async throws {
        try await TestDatabase.with { url in
            try await PostgresDatabase.with(url: url) { database in
                try await database.migrate()
                let here = InstanceLease(database: database)
                try await here.hold()
                let store = PostgresConversationStore(database: database, owner: "", lease: here)
                let conversation = Sample.conversation()
                try await store.create(conversation)

                // Another instance, with a pool and a lease of its own, writes an answer.
                let other = try PostgresDatabase(url: url)
                let otherLease = InstanceLease(database: other)
                try await otherLease.hold()
                #expect(otherLease.key != here.key)
                let elsewhere = PostgresConversationStore(database: other, owner: "", lease: otherLease)
                let answer = Message(conversationID: conversation.id, role: .assistant, text: "Writing", status: .pending)
                try await elsewhere.append(answer)

                // While it lives, its answer is left alone and the conversation is busy.
                #expect(try await store.settlePendingAnswers(in: conversation.id, reason: "gone") == 1)
                #expect(try await store.message(id: answer.id)?.status == .pending)

                // It dies without letting go (its connections just end, as with kill -9). The server
                // drops the lock once it has noticed, a moment later.
                await other.close()
                // (PostgreSQL tells no client when it has: asked until it has.)
                try await eventually("the dead instance's lock dropped") {
                    try await store.settlePendingAnswers(in: conversation.id, reason: "gone") == 0
                }
                let settled = try #require(try await store.message(id: answer.id))
                #expect(settled.status == .failed && settled.error == "gone" && settled.text == "Writing")
                await here.release()
            }
        }
    }

    @Test(.enabled(if: TestDatabase.url != nil)) func theLeaseSweepsAnswersDeadWritersLeftWithoutWaitingForTheirConversation() async throws {
        try await TestDatabase.with { url in
            try await PostgresDatabase.with(url: url) { database in
                try await database.migrate()
                let other = try PostgresDatabase(url: url)
                let otherLease = InstanceLease(database: other)
                try await otherLease.hold()
                let elsewhere = PostgresConversationStore(database: other, owner: "users/bo", lease: otherLease)
                let conversation = Sample.conversation()
                try await elsewhere.create(conversation)
                let answer = Message(conversationID: conversation.id, role: .assistant, text: "", status: .pending)
                try await elsewhere.append(answer)
                await other.close()

                let here = InstanceLease(database: database, sweepInterval: .milliseconds(200))
                try await here.hold()
                let store = PostgresConversationStore(database: database, owner: "users/bo", lease: here)
                // The sweep runs every 200 ms and says so to no one: looked at until it has run.
                try await eventually("the lease's sweep to mark the answer failed") { try await store.message(id: answer.id)?.status == .failed }
                #expect(try await store.message(id: answer.id)?.error == InstanceLease.interrupted)
                await here.release()
            }
        }
    }
}
