import Foundation
import SibylCore
@testable import Storage

/// A fresh directory under the system's temporary directory, removed when the value goes away.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-storage-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    var databasePath: String { url.appendingPathComponent("data/conversations.sqlite").path }
    var attachmentsPath: String { url.appendingPathComponent("data/attachments").path }

    /// Opens (or reopens) the file store kept in this directory.
    func openStore() throws -> ConversationStore {
        try ConversationStore(path: databasePath, attachmentsDirectory: attachmentsPath)
    }

    /// Names of the files in the attachments directory.
    func attachmentFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: attachmentsPath).sorted()
    }
}

/// Values the tests build on. Dates have whole milliseconds: the store keeps no finer precision,
/// so a message made with `Date()` reads back a fraction of a millisecond off.
enum Sample {
    static let start = Date(timeIntervalSince1970: 1_714_566_605.250)

    static func date(_ secondsAfterStart: Double) -> Date {
        Date(timeIntervalSince1970: 1_714_566_605.250 + secondsAfterStart)
    }

    static func conversation(
        id: UUID = UUID(), title: String? = "Trip planning", source: ConversationSource = .cli, updatedAt: Date? = nil
    ) -> Conversation {
        Conversation(
            id: id, title: title, persona: "assistant", mode: .chat, source: source, createdAt: start, updatedAt: updatedAt ?? start
        )
    }

    /// Bytes that differ from one call to the next, so equal reads prove the right data came back.
    static func bytes(_ count: Int) -> Data {
        var generator = SystemRandomNumberGenerator()
        var data = Data(capacity: count + 8)
        while data.count < count {
            withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0) }
        }
        return data.prefix(count)
    }

    static func image(bytes count: Int = 64, filename: String? = "photo.png") -> Attachment {
        Attachment(kind: .image, mimeType: "image/png", filename: filename, data: bytes(count))
    }

    /// A conversation's worth of messages in every state the store keeps.
    static func messages(in conversationID: UUID) -> [Message] {
        [
            Message(conversationID: conversationID, role: .system, text: "Be brief.", createdAt: date(0)),
            Message(
                conversationID: conversationID, role: .user, text: "What is in this picture?",
                attachments: [image(), Attachment(kind: .audio, mimeType: "audio/wav", filename: nil, data: bytes(300 * 1024))],
                createdAt: date(1)
            ),
            Message(
                conversationID: conversationID, role: .assistant, text: "A lighthouse at dusk.", model: "gpt-4o-mini",
                usage: TokenUsage(promptTokens: 812, completionTokens: 9),
                timings: Timings(timeToFirstToken: .milliseconds(240), total: .milliseconds(1_530)), createdAt: date(2)
            ),
            Message(conversationID: conversationID, role: .user, text: "And the weather?", createdAt: date(3)),
            Message(
                conversationID: conversationID, role: .assistant, text: "It looks", model: "gpt-4o-mini",
                timings: Timings(timeToFirstToken: nil, total: .milliseconds(30_000)), status: .failed,
                error: "The connection was reset by the server.", createdAt: date(4)
            ),
            Message(
                conversationID: conversationID, role: .assistant, text: "Clear skies, it", model: "gpt-4o-mini",
                status: .cancelled, createdAt: date(5)
            ),
        ]
    }

    /// A store holding one sample conversation with the sample messages.
    static func filledStore(_ store: ConversationStore) throws -> Conversation {
        let conversation = conversation()
        try store.create(conversation)
        for message in messages(in: conversation.id) {
            try store.append(message)
        }
        return try store.conversation(id: conversation.id)!
    }
}
