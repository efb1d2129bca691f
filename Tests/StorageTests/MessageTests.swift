import Foundation
import SibylCore
import Testing
@testable import Storage

@Suite("Messages", .timeLimit(.minutes(10)))
struct MessageTests {
    @Test("Messages come back in append order with everything they carry")
    func appendAndRead() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Sample.conversation(updatedAt: Sample.start)
        try store.create(conversation)
        let messages = Sample.messages(in: conversation.id)
        for message in messages { try store.append(message) }

        #expect(try store.messages(in: conversation.id) == messages)
        #expect(try store.message(id: messages[1].id) == messages[1])
        #expect(try store.message(id: UUID()) == nil)
        let updated = try #require(try store.conversation(id: conversation.id)).updatedAt
        #expect(updated > conversation.updatedAt, "appending marks the conversation as active")
    }

    @Test("Appending to an unknown conversation or reusing an id fails")
    func appendErrors() throws {
        let store = try ConversationStore.inMemory()
        let unknown = UUID()
        #expect(throws: StorageError.notFound(unknown.uuidString.lowercased())) {
            try store.append(Message(conversationID: unknown, role: .user, text: "hi"))
        }
        #expect(throws: StorageError.notFound(unknown.uuidString.lowercased())) { try store.messages(in: unknown) }

        let conversation = Sample.conversation()
        try store.create(conversation)
        let message = Message(conversationID: conversation.id, role: .user, text: "hi")
        try store.append(message)
        #expect(throws: StorageError.messageExists(message.id)) { try store.append(message) }
        #expect(try store.messages(in: conversation.id).count == 1)
    }

    @Test("Updating a streamed answer keeps its place, creation time and untouched attachments")
    func update() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let question = Message(conversationID: conversation.id, role: .user, text: "Describe", attachments: [Sample.image()], createdAt: Sample.date(1))
        var answer = Message(conversationID: conversation.id, role: .assistant, text: "", attachments: [Sample.image(filename: "a.png")], status: .pending, createdAt: Sample.date(2))
        try store.append(question)
        try store.append(answer)
        try store.append(Message(conversationID: conversation.id, role: .user, text: "after", createdAt: Sample.date(3)))

        answer.text = "A cat on a mat."
        answer.status = .complete
        answer.model = "llama-3.2-3b"
        answer.usage = TokenUsage(promptTokens: 100, completionTokens: 7)
        answer.timings = Timings(timeToFirstToken: .milliseconds(95), total: .milliseconds(870))
        var moved = answer
        moved.createdAt = Sample.date(99)
        moved.conversationID = UUID()
        try store.update(moved)

        let stored = try store.messages(in: conversation.id)
        #expect(stored.map(\.text) == ["Describe", "A cat on a mat.", "after"])
        #expect(stored[1] == answer)

        answer.status = .failed
        answer.error = "HTTP 500 from the provider"
        try store.update(answer)
        #expect(try store.message(id: answer.id) == answer)
    }

    @Test("Drafts of growing answers are saved together and never overwrite a finished answer")
    func drafts() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let first = Message(conversationID: conversation.id, role: .assistant, text: "", status: .pending)
        var second = Message(conversationID: conversation.id, role: .assistant, text: "", status: .pending)
        try store.append(first)
        try store.append(second)

        try store.saveDrafts([first.id: "Once upon", second.id: "In the"])
        #expect(try store.message(id: first.id)?.text == "Once upon")
        #expect(try store.message(id: second.id)?.text == "In the")
        #expect(try store.message(id: first.id)?.status == .pending)

        second.text = "In the beginning."
        second.status = .complete
        try store.update(second)
        // A draft taken before the final save and written after it changes nothing.
        try store.saveDrafts([first.id: "Once upon a time", second.id: "In the beg"])
        #expect(try store.message(id: first.id)?.text == "Once upon a time")
        let finished = try #require(try store.message(id: second.id))
        #expect(finished.text == "In the beginning.")
        #expect(finished.status == .complete)
        // Unknown messages (an answer deleted meanwhile) are no error.
        try store.saveDrafts([UUID(): "gone"])
    }

    @Test("Updating an unknown message is reported")
    func updateUnknown() throws {
        let store = try ConversationStore.inMemory()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let message = Message(conversationID: conversation.id, role: .user, text: "never stored")
        #expect(throws: StorageError.messageNotFound(message.id)) { try store.update(message) }
    }

    @Test("Attachments can be replaced, reordered and removed; their files follow")
    func updateAttachments() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.openStore()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let small = Sample.image(filename: "small.png")
        let large = Attachment(kind: .audio, mimeType: "audio/wav", filename: "voice.wav", data: Sample.bytes(400 * 1024))
        let doomed = Attachment(kind: .file, mimeType: "application/pdf", filename: "old.pdf", data: Sample.bytes(300 * 1024))
        var message = Message(conversationID: conversation.id, role: .user, text: "files", attachments: [small, large, doomed])
        try store.append(message)
        #expect(try directory.attachmentFiles().count == 2)
        let largeFile = try directory.attachmentFiles()

        var changed = small
        changed.data = Sample.bytes(500 * 1024)
        let added = Sample.image(bytes: 10, filename: "new.png")
        message.attachments = [large, changed, added]
        try store.update(message)

        #expect(try store.message(id: message.id)?.attachments == [large, changed, added])
        let files = try directory.attachmentFiles()
        #expect(files.count == 2, "the large file stays, the changed one gets a file, the removed one's file goes")
        #expect(Set(files).intersection(largeFile).count == 1, "an unchanged attachment keeps its file")

        message.attachments = []
        try store.update(message)
        #expect(try store.message(id: message.id)?.attachments == [])
        #expect(try directory.attachmentFiles().isEmpty)
    }

    @Test("Deleting a message removes it and its attachment files")
    func deleteMessage() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.openStore()
        let conversation = Sample.conversation()
        try store.create(conversation)
        let messages = Sample.messages(in: conversation.id)
        for message in messages { try store.append(message) }
        #expect(try directory.attachmentFiles().count == 1)

        #expect(try store.deleteMessage(id: messages[1].id))
        #expect(try store.deleteMessage(id: messages[1].id) == false)
        #expect(try store.message(id: messages[1].id) == nil)
        #expect(try directory.attachmentFiles().isEmpty)
        #expect(try store.messages(in: conversation.id).map(\.id) == messages.filter { $0.id != messages[1].id }.map(\.id))

        // Positions keep growing after a delete, so the order stays the append order.
        let last = Message(conversationID: conversation.id, role: .user, text: "last", createdAt: Sample.date(10))
        try store.append(last)
        #expect(try store.messages(in: conversation.id).last == last)
    }

    @Test("Deleting a conversation removes its messages, attachments and files, and nothing else")
    func cascadeDelete() throws {
        let directory = try TemporaryDirectory()
        let store = try directory.openStore()
        let doomed = try Sample.filledStore(store)
        let kept = Sample.conversation(title: "kept")
        try store.create(kept)
        let keptMessage = Message(
            conversationID: kept.id, role: .user, text: "keep me",
            attachments: [Attachment(kind: .image, mimeType: "image/jpeg", data: Sample.bytes(512 * 1024))],
            createdAt: Sample.date(7)
        )
        try store.append(keptMessage)
        let doomedMessages = try store.messages(in: doomed.id)
        #expect(try directory.attachmentFiles().count == 2)

        #expect(try store.delete(conversation: doomed.id))
        #expect(try store.delete(conversation: doomed.id) == false)
        #expect(try store.conversation(id: doomed.id) == nil)
        #expect(throws: StorageError.notFound(doomed.id.uuidString.lowercased())) { try store.messages(in: doomed.id) }
        for message in doomedMessages {
            #expect(try store.message(id: message.id) == nil)
        }
        #expect(try directory.attachmentFiles().count == 1)
        #expect(try store.messages(in: kept.id) == [keptMessage])
        #expect(try store.conversations().map(\.id) == [kept.id])
    }
}
