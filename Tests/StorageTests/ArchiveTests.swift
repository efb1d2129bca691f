import Foundation
import SibylCore
import Testing
@testable import Storage

@Suite("JSON export and import", .timeLimit(.minutes(10)))
struct ArchiveTests {
    @Test("Export then import into another store gives the same conversation, ids included")
    func roundTrip() throws {
        let source = try ConversationStore.inMemory()
        let conversation = try Sample.filledStore(source)
        try source.setMode(.translator(target: "fr"), for: conversation.id)
        let original = try #require(try source.conversation(id: conversation.id))
        let messages = try source.messages(in: conversation.id)
        let json = try source.exportJSON(conversationID: conversation.id)

        let directory = try TemporaryDirectory()
        let target = try directory.openStore()
        let imported = try target.importJSON(json)
        #expect(imported == original)
        #expect(try target.messages(in: imported.id) == messages)
        #expect(try directory.attachmentFiles().count == 1, "the large recording is written to a file on import")
        #expect(messages.map(\.status) == [.complete, .complete, .complete, .complete, .failed, .cancelled])
    }

    @Test("Importing the same archive twice gives two conversations with distinct ids")
    func importTwice() throws {
        let store = try ConversationStore.inMemory()
        let conversation = try Sample.filledStore(store)
        let json = try store.exportJSON(conversationID: conversation.id)

        let first = try store.importJSON(json)
        let second = try store.importJSON(json)
        let ids = [conversation.id, first.id, second.id]
        #expect(Set(ids).count == 3)
        #expect(try store.conversations().count == 3)

        let originalMessages = try store.messages(in: conversation.id)
        let copies = [try store.messages(in: first.id), try store.messages(in: second.id)]
        var seenMessageIDs = Set(originalMessages.map(\.id))
        var seenAttachmentIDs = Set(originalMessages.flatMap { $0.attachments.map(\.id) })
        for copy in copies {
            #expect(copy.map(\.text) == originalMessages.map(\.text))
            #expect(copy.map(\.status) == originalMessages.map(\.status))
            #expect(copy.map(\.attachments).map { $0.map(\.data) } == originalMessages.map(\.attachments).map { $0.map(\.data) })
            for message in copy {
                #expect(seenMessageIDs.insert(message.id).inserted)
                for attachment in message.attachments { #expect(seenAttachmentIDs.insert(attachment.id).inserted) }
            }
        }
        // Deleting a copy leaves the original whole: nothing was shared.
        try store.delete(conversation: first.id)
        #expect(try store.messages(in: conversation.id) == originalMessages)
    }

    @Test("The JSON is a documented, readable archive")
    func jsonShape() throws {
        let store = try ConversationStore.inMemory()
        let conversation = try Sample.filledStore(store)
        let json = try store.exportJSON(conversationID: conversation.id)
        let text = try #require(String(data: json, encoding: .utf8))
        #expect(text.contains("\"format\" : \"sibyl.conversation\""))
        #expect(text.contains("\"version\" : 1"))
        #expect(text.contains("\"createdAt\" : \"2024-05-01T12:30:05.250Z\""))
        #expect(text.contains("\"status\" : \"failed\""))
        #expect(text.contains("\"error\" : \"The connection was reset by the server.\""))
        #expect(text.contains("\"timeToFirstTokenMs\" : 240"))
        let image = try #require(try store.messages(in: conversation.id)[1].attachments.first)
        #expect(text.contains(image.data.base64EncodedString()))
        let conversationKey = try #require(text.range(of: "\"conversation\""))
        let formatKey = try #require(text.range(of: "\"format\""))
        #expect(conversationKey.lowerBound < formatKey.lowerBound, "keys are sorted")
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        let messages = try #require(object["messages"] as? [[String: Any]])
        #expect(messages[0]["attachments"] == nil, "an empty attachment list is left out")
        #expect(messages[0]["usage"] == nil, "absent values are left out")
        #expect(throws: StorageError.notFound(UUID(uuidString: "00000000-0000-0000-0000-000000000000")!.uuidString.lowercased())) {
            try store.exportJSON(conversationID: UUID(uuidString: "00000000-0000-0000-0000-000000000000")!)
        }
    }

    @Test("Archives that cannot be imported say why, and nothing is stored")
    func badArchives() throws {
        let store = try ConversationStore.inMemory()
        let conversation = try Sample.filledStore(store)
        let json = try store.exportJSON(conversationID: conversation.id)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])

        func variant(_ change: (inout [String: Any]) -> Void) throws -> Data {
            var copy = object
            change(&copy)
            return try JSONSerialization.data(withJSONObject: copy)
        }

        #expect(throws: StorageError.invalidArchive("it is not valid JSON")) { try store.importJSON(Data("# Trip planning".utf8)) }
        #expect(throws: StorageError.invalidArchive("the top level is not a JSON object")) { try store.importJSON(Data("[1, 2]".utf8)) }
        #expect(throws: StorageError.unsupportedArchiveFormat("chatgpt.export")) {
            try store.importJSON(try variant { $0["format"] = "chatgpt.export" })
        }
        #expect(throws: StorageError.invalidArchive("it has no \"format\" field")) {
            try store.importJSON(try variant { $0["format"] = nil })
        }
        #expect(throws: StorageError.unsupportedArchiveVersion(2)) { try store.importJSON(try variant { $0["version"] = 2 }) }
        #expect(throws: StorageError.invalidArchive("conversation.persona is missing")) {
            try store.importJSON(try variant { archive in
                var header = archive["conversation"] as! [String: Any]
                header["persona"] = nil
                archive["conversation"] = header
            })
        }
        do {
            _ = try store.importJSON(try variant { archive in
                var messages = archive["messages"] as! [[String: Any]]
                messages[2]["role"] = "robot"
                archive["messages"] = messages
            })
            Issue.record("an unknown role was accepted")
        } catch let error as StorageError {
            guard case .invalidArchive(let reason) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(reason.hasPrefix("messages[2].role"))
        }
        #expect(throws: StorageError.invalidArchive("conversation.mode 'karaoke' is neither 'chat' nor 'translator:LANG'")) {
            try store.importJSON(try variant { archive in
                var header = archive["conversation"] as! [String: Any]
                header["mode"] = "karaoke"
                archive["conversation"] = header
            })
        }
        #expect(try store.conversations().count == 1)
        #expect(StorageError.unsupportedArchiveFormat("x").errorDescription?.contains("sibyl.conversation") == true)
    }
}
