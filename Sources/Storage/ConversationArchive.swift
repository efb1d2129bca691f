public import Foundation
public import SibylCore

/// A conversation with its messages and attachments as one self-contained JSON document.
///
/// Made by `ConversationStore.exportJSON(conversationID:)` and read by `importJSON(_:)`. The JSON
/// has sorted keys, dates in ISO-8601 UTC with milliseconds, attachment bytes in base64, and
/// leaves out absent values:
///
/// ```json
/// {
///   "conversation" : { "createdAt" : "2024-05-01T12:30:05.250Z", "id" : "…", "mode" : "chat",
///                      "persona" : "assistant", "source" : "cli", "title" : "…", "updatedAt" : "…" },
///   "exportedAt" : "2024-05-02T08:00:00.000Z",
///   "format" : "sibyl.conversation",
///   "messages" : [ { "attachments" : [ { "data" : "iVBORw0…", "filename" : "photo.png", "id" : "…",
///                                        "kind" : "image", "mimeType" : "image/png" } ],
///                    "createdAt" : "…", "error" : "…", "id" : "…", "model" : "…", "role" : "assistant",
///                    "status" : "failed", "text" : "…",
///                    "timings" : { "timeToFirstTokenMs" : 120, "totalMs" : 1500 },
///                    "usage" : { "completionTokens" : 34, "promptTokens" : 12 } } ],
///   "version" : 1
/// }
/// ```
///
/// `mode` is `chat` or `translator:LANG`; messages are in conversation order.
public struct ConversationArchive: Sendable, Hashable, Codable {
    /// The `format` value that marks a Sibyl conversation archive.
    public static let formatIdentifier = "sibyl.conversation"
    /// The archive layout version this build writes and reads.
    public static let currentVersion = 1

    /// Always `formatIdentifier`.
    public var format: String
    /// The layout version; readers refuse versions they do not know.
    public var version: Int
    /// When the archive was made.
    public var exportedAt: Date
    /// The conversation's header.
    public var conversation: ArchivedConversation
    /// The messages, in conversation order.
    public var messages: [ArchivedMessage]

    /// A conversation's header as archived.
    public struct ArchivedConversation: Sendable, Hashable, Codable {
        /// The conversation's id.
        public var id: UUID
        /// The title, if the conversation has one.
        public var title: String?
        /// The persona's name.
        public var persona: String
        /// `chat` or `translator:LANG`, as `ConversationMode.storedValue` writes it.
        public var mode: String
        /// Where the conversation was started.
        public var source: ConversationSource
        /// When the conversation was started.
        public var createdAt: Date
        /// When the conversation last changed.
        public var updatedAt: Date
    }

    /// A message as archived; `attachments` is left out when empty.
    public struct ArchivedMessage: Sendable, Hashable, Codable {
        /// The message's id.
        public var id: UUID
        /// Who wrote it.
        public var role: ChatRole
        /// Its text.
        public var text: String
        /// Its attachments, bytes included.
        public var attachments: [ArchivedAttachment]
        /// The model that wrote it, for assistant messages.
        public var model: String?
        /// Token counts the provider reported.
        public var usage: ArchivedUsage?
        /// How long the answer took.
        public var timings: ArchivedTimings?
        /// Whether the message is whole, failed or cancelled.
        public var status: MessageStatus
        /// What went wrong, for failed messages.
        public var error: String?
        /// The sources a grounded answer cites.
        public var citations: [Citation]
        /// When the message was written.
        public var createdAt: Date
    }

    /// An attachment as archived, its bytes base64-encoded.
    public struct ArchivedAttachment: Sendable, Hashable, Codable {
        /// The attachment's id.
        public var id: UUID
        /// Image, audio or other file.
        public var kind: Attachment.Kind
        /// The bytes' MIME type.
        public var mimeType: String
        /// The original file name, if known.
        public var filename: String?
        /// The bytes.
        public var data: Data
    }

    /// Token counts as archived.
    public struct ArchivedUsage: Sendable, Hashable, Codable {
        /// Tokens in the prompt.
        public var promptTokens: Int
        /// Tokens in the answer.
        public var completionTokens: Int
    }

    /// Timings as archived, in whole milliseconds.
    public struct ArchivedTimings: Sendable, Hashable, Codable {
        /// Time to the first answer text, if any arrived.
        public var timeToFirstTokenMs: Int?
        /// Time for the whole answer.
        public var totalMs: Int
    }

    /// Archives a conversation and its messages (in conversation order).
    public init(conversation: Conversation, messages: [Message], exportedAt: Date = Date()) {
        format = Self.formatIdentifier
        version = Self.currentVersion
        self.exportedAt = exportedAt
        self.conversation = ArchivedConversation(
            id: conversation.id, title: conversation.title, persona: conversation.persona, mode: conversation.mode.storedValue,
            source: conversation.source, createdAt: conversation.createdAt, updatedAt: conversation.updatedAt
        )
        self.messages = messages.map { message in
            ArchivedMessage(
                id: message.id,
                role: message.role,
                text: message.text,
                attachments: message.attachments.map {
                    ArchivedAttachment(id: $0.id, kind: $0.kind, mimeType: $0.mimeType, filename: $0.filename, data: $0.data)
                },
                model: message.model,
                usage: message.usage.map { ArchivedUsage(promptTokens: $0.promptTokens, completionTokens: $0.completionTokens) },
                timings: message.timings.map {
                    ArchivedTimings(timeToFirstTokenMs: $0.timeToFirstTokenMilliseconds, totalMs: $0.totalMilliseconds)
                },
                status: message.status,
                error: message.error,
                citations: message.citations,
                createdAt: message.createdAt
            )
        }
    }

    /// The conversation with fresh ids for it, its messages and their attachments: what an import
    /// stores when any of the archive's ids is taken, so that it never overwrites or merges.
    public static func withFreshIDs(_ conversation: Conversation, _ messages: [Message]) -> (Conversation, [Message]) {
        var conversation = conversation
        conversation.id = UUID()
        let messages = messages.map { message in
            var copy = message
            copy.id = UUID()
            copy.conversationID = conversation.id
            copy.attachments = message.attachments.map { attachment in
                var fresh = attachment
                fresh.id = UUID()
                return fresh
            }
            return copy
        }
        return (conversation, messages)
    }

    /// The conversation and its messages as the store's value types, after checking format and version.
    public func restored() throws -> (conversation: Conversation, messages: [Message]) {
        try Self.checkHeader(format: format, version: version)
        guard let mode = ConversationMode(storedValue: conversation.mode) else {
            throw StorageError.invalidArchive("conversation.mode '\(conversation.mode)' is neither 'chat' nor 'translator:LANG'")
        }
        let header = Conversation(
            id: conversation.id, title: conversation.title, persona: conversation.persona, mode: mode,
            source: conversation.source, createdAt: conversation.createdAt, updatedAt: conversation.updatedAt
        )
        let restoredMessages = messages.map { entry in
            Message(
                id: entry.id,
                conversationID: conversation.id,
                role: entry.role,
                text: entry.text,
                attachments: entry.attachments.map {
                    Attachment(id: $0.id, kind: $0.kind, mimeType: $0.mimeType, filename: $0.filename, data: $0.data)
                },
                model: entry.model,
                usage: entry.usage.map { TokenUsage(promptTokens: $0.promptTokens, completionTokens: $0.completionTokens) },
                timings: entry.timings.map {
                    Timings(timeToFirstToken: $0.timeToFirstTokenMs.map { .milliseconds($0) }, total: .milliseconds($0.totalMs))
                },
                status: entry.status,
                error: entry.error,
                citations: entry.citations,
                createdAt: entry.createdAt
            )
        }
        return (header, restoredMessages)
    }

    static func checkHeader(format: String, version: Int) throws {
        guard format == formatIdentifier else { throw StorageError.unsupportedArchiveFormat(format) }
        guard version == currentVersion else { throw StorageError.unsupportedArchiveVersion(version) }
    }
}

// In an extension, so that the message keeps its synthesized memberwise initialiser.
extension ConversationArchive.ArchivedMessage {
    private enum CodingKeys: String, CodingKey {
        case id, role, text, attachments, model, usage, timings, status, error, citations, createdAt
    }

    /// Reads a message; a missing `attachments` or `citations` means none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        role = try container.decode(ChatRole.self, forKey: .role)
        text = try container.decode(String.self, forKey: .text)
        attachments = try container.decodeIfPresent([ConversationArchive.ArchivedAttachment].self, forKey: .attachments) ?? []
        model = try container.decodeIfPresent(String.self, forKey: .model)
        usage = try container.decodeIfPresent(ConversationArchive.ArchivedUsage.self, forKey: .usage)
        timings = try container.decodeIfPresent(ConversationArchive.ArchivedTimings.self, forKey: .timings)
        status = try container.decode(MessageStatus.self, forKey: .status)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        citations = try container.decodeIfPresent([Citation].self, forKey: .citations) ?? []
        createdAt = try container.decode(Date.self, forKey: .createdAt)
    }

    /// Writes a message, leaving out absent values and an empty attachment list.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(role, forKey: .role)
        try container.encode(text, forKey: .text)
        if !attachments.isEmpty { try container.encode(attachments, forKey: .attachments) }
        try container.encodeIfPresent(model, forKey: .model)
        try container.encodeIfPresent(usage, forKey: .usage)
        try container.encodeIfPresent(timings, forKey: .timings)
        try container.encode(status, forKey: .status)
        try container.encodeIfPresent(error, forKey: .error)
        if !citations.isEmpty { try container.encode(citations, forKey: .citations) }
        try container.encode(createdAt, forKey: .createdAt)
    }
}
