import Foundation
import GRDB
import SibylCore
import Testing
@testable import Storage

@Suite("File database", .timeLimit(.minutes(10)))
struct PersistenceTests {
    @Test("The database file is in WAL mode")
    func walMode() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.openStore()
        _ = try Sample.filledStore(store)
        // A separate connection reads the mode recorded in the file itself.
        let probe = try DatabaseQueue(path: directory.databasePath)
        let mode = try probe.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        try probe.close()
        try store.close()
    }

    @Test("Data survives closing and reopening, and reopening runs no migration twice")
    func reopen() throws {
        let directory = try TemporaryDirectory()
        let conversation: Conversation
        let messages: [Message]
        let persona = Persona(name: "Pirate", systemPrompt: "Talk like a pirate.", sampling: Sampling(temperature: 0.9))
        do {
            let store = try directory.openStore()
            conversation = try Sample.filledStore(store)
            messages = try store.messages(in: conversation.id)
            try store.save(persona)
            try store.close()
        }
        for _ in 0..<2 {
            let store = try directory.openStore()
            #expect(try store.conversation(id: conversation.id) == conversation)
            #expect(try store.messages(in: conversation.id) == messages)
            #expect(try store.personas() == [persona])
            try store.close()
        }
        let probe = try DatabaseQueue(path: directory.databasePath)
        let migrations = try probe.read { db in try String.fetchAll(db, sql: "SELECT identifier FROM grdb_migrations") }
        #expect(migrations == ["v1", "v2", "v3", "v4", "v5"])
        try probe.close()
    }

    @Test("A persona saved before personas had more sampling than a temperature keeps it")
    func personaFromBeforeSampling() throws {
        let directory = try TemporaryDirectory()
        do {
            try FileManager.default.createDirectory(atPath: (directory.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let old = try DatabaseQueue(path: directory.databasePath)
            try Schema.migrator.migrate(old, upTo: "v3")
            try old.write { db in
                try db.execute(sql: """
                    INSERT INTO persona (name_key, name, system_prompt, model, temperature, summary, created_at, updated_at)
                    VALUES ('pirate', 'Pirate', 'Arr.', 'm', 0.9, 'old', 0, 0)
                    """)
            }
            try old.close()
        }
        let store = try directory.openStore()
        #expect(try store.personas() == [Persona(name: "Pirate", systemPrompt: "Arr.", model: "m", sampling: Sampling(temperature: 0.9), summary: "old")])
        try store.close()
    }

    @Test("A database from a newer Sibyl is refused rather than misread")
    func newerSchema() throws {
        let directory = try TemporaryDirectory()
        try directory.openStore().close()
        let probe = try DatabaseQueue(path: directory.databasePath)
        try probe.write { db in try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('v99')") }
        try probe.close()
        #expect(throws: StorageError.newerDatabase(path: directory.databasePath)) { try directory.openStore() }
    }

    @Test("A file that is not a database is reported with its path")
    func notADatabase() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(
            atPath: (directory.databasePath as NSString).deletingLastPathComponent, withIntermediateDirectories: true
        )
        try Data(String(repeating: "not sqlite ", count: 200).utf8).write(to: URL(fileURLWithPath: directory.databasePath))
        do {
            _ = try directory.openStore()
            Issue.record("opening a text file as a database succeeded")
        } catch let error as StorageError {
            guard case .cannotOpen(let path, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == directory.databasePath)
        }
    }

    @Test("Large attachments go to files and read back identical; small ones stay inline")
    func largeAttachments() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.openStore()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let limit = 256 * 1024
        let atLimit = Attachment(kind: .image, mimeType: "image/png", filename: "edge.png", data: Sample.bytes(limit))
        let large = Attachment(kind: .audio, mimeType: "audio/wav", filename: "talk.wav", data: Sample.bytes(limit + 1))
        let empty = Attachment(kind: .file, mimeType: "text/plain", filename: "empty.txt", data: Data())
        let message = Message(conversationID: conversation.id, role: .user, text: "listen", attachments: [atLimit, large, empty])
        try store.append(message)

        let files = try directory.attachmentFiles()
        #expect(files.count == 1)
        let file = URL(fileURLWithPath: directory.attachmentsPath).appendingPathComponent(files[0])
        #expect(try Data(contentsOf: file) == large.data)
        #expect(try store.message(id: message.id)?.attachments == [atLimit, large, empty])

        try store.close()
        let reopened = try directory.openStore()
        #expect(try reopened.message(id: message.id)?.attachments == [atLimit, large, empty])

        try FileManager.default.removeItem(at: file)
        #expect(throws: StorageError.attachmentMissing(large.id, path: file.path)) { try reopened.message(id: message.id) }
    }

    @Test("The in-memory store keeps even large attachments")
    func inMemoryLargeAttachment() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let message = Message(
            conversationID: conversation.id, role: .user, text: "", attachments: [Sample.image(bytes: 600 * 1024)], createdAt: Sample.date(1)
        )
        try store.append(message)
        #expect(try store.message(id: message.id) == message)
    }
}

@Suite("Attachment files", .timeLimit(.minutes(10)))
struct AttachmentFileTests {
    @Test("Unused files are swept once they are old enough; files in use never are")
    func sweep() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.openStore()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let message = Message(
            conversationID: conversation.id, role: .user, text: "",
            attachments: [Sample.image(bytes: 300 * 1024)], createdAt: Sample.date(1)
        )
        try store.append(message)
        let used = try #require(try directory.attachmentFiles().first)
        let folder = URL(fileURLWithPath: directory.attachmentsPath)
        try Data("stray".utf8).write(to: folder.appendingPathComponent("old-stray"))
        try Data("stray".utf8).write(to: folder.appendingPathComponent("new-stray"))
        let twoHoursAgo = Date().addingTimeInterval(-7200)
        for name in ["old-stray", used] {
            try FileManager.default.setAttributes([.modificationDate: twoHoursAgo], ofItemAtPath: folder.appendingPathComponent(name).path)
        }

        #expect(try store.removeUnusedAttachmentFiles() == 1)
        #expect(try directory.attachmentFiles() == [used, "new-stray"].sorted())
        #expect(try store.message(id: message.id) == message)
        #expect(try ConversationStore.inMemory().removeUnusedAttachmentFiles() == 0)
    }
}

@Suite("Citations and the operations log", .timeLimit(.minutes(10)))
struct CitationAndLogTests {
    @Test func citationsRoundTripThroughTheStoreAndArchives() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Conversation()
        try store.create(conversation)
        let citation = Citation(number: 1, documentTitle: "Tea", documentPath: "/tea.md", page: 3, headingPath: ["Brewing"], quote: "80 °C", score: 0.71)
        let answer = Message(conversationID: conversation.id, role: .assistant, text: "80 °C [1].", citations: [citation], createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        try store.append(answer)
        #expect(try store.message(id: answer.id)?.citations == [citation])
        let imported = try store.importJSON(try store.exportJSON(conversationID: conversation.id))
        #expect(try store.messages(in: imported.id).first?.citations == [citation])
    }

    @Test func logEntriesFilterByLevelTimeAndTextAndRedactKeys() throws {
        let store = try ConversationStore.inMemory()
        try store.log(.info, "docs.add", "added 3 documents", details: ["count": 3])
        try store.log(.error, "ask", "HTTP 401 for key sk-abcdefghijklmnop1234")
        try store.log(.warning, "docs.add", "1 file 100% failed_here")
        #expect(try store.logEntries().map(\.category) == ["docs.add", "ask", "docs.add"])
        #expect(try store.logEntries(minimumLevel: .warning).map(\.level) == [.error, .warning])
        #expect(try store.logEntries(matching: "100%").count == 1)
        #expect(try store.logEntries(matching: "d_3").isEmpty, "_ is a literal, not a wildcard matching \"d 3\"")
        #expect(try store.logEntries(since: Date().addingTimeInterval(60)).isEmpty)
        #expect(try store.logEntries(limit: 1).map(\.message) == ["1 file 100% failed_here"])
        #expect(try store.logEntries(matching: "ask").first?.message.contains("abcdefghijklmnop") == false)
        #expect(try store.logEntries().first?.details == #"{"count":3}"#)
    }
}
