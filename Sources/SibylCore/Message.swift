import Foundation

/// Whether a stored message holds a whole answer.
public enum MessageStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// Still being generated.
    case pending
    case complete
    /// The provider or the connection failed; the text is what arrived before.
    case failed
    /// The user stopped the answer; the text is what arrived before.
    case cancelled
}

/// A file that belongs to a message: an image the user showed, a recording, a generated image.
public struct Attachment: Sendable, Hashable, Identifiable {
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        case image, audio, file
    }

    public var id: UUID
    public var kind: Kind
    public var mimeType: String
    public var filename: String?
    public var data: Data

    public init(id: UUID = UUID(), kind: Kind, mimeType: String, filename: String? = nil, data: Data) {
        self.id = id
        self.kind = kind
        self.mimeType = mimeType
        self.filename = filename
        self.data = data
    }
}

/// A message as the conversation store keeps it.
public struct Message: Sendable, Hashable, Identifiable {
    public var id: UUID
    public var conversationID: UUID
    public var role: ChatRole
    public var text: String
    public var attachments: [Attachment]
    /// The model that wrote an assistant message.
    public var model: String?
    public var usage: TokenUsage?
    public var timings: Timings?
    public var status: MessageStatus
    /// What went wrong, for failed messages.
    public var error: String?
    /// The sources a grounded answer was given (and numbers in its text refer to).
    public var citations: [Citation]
    public var createdAt: Date

    public init(
        id: UUID = UUID(),
        conversationID: UUID,
        role: ChatRole,
        text: String,
        attachments: [Attachment] = [],
        model: String? = nil,
        usage: TokenUsage? = nil,
        timings: Timings? = nil,
        status: MessageStatus = .complete,
        error: String? = nil,
        citations: [Citation] = [],
        createdAt: Date = Date()
    ) {
        self.id = id
        self.conversationID = conversationID
        self.role = role
        self.text = text
        self.attachments = attachments
        self.model = model
        self.usage = usage
        self.timings = timings
        self.status = status
        self.error = error
        self.citations = citations
        self.createdAt = createdAt
    }

    /// The message in the form a chat model takes, images included.
    public var chatMessage: ChatMessage {
        var parts: [ContentPart] = []
        if !text.isEmpty || attachments.isEmpty { parts.append(.text(text)) }
        for attachment in attachments where attachment.kind == .image {
            parts.append(.image(ImageInput(source: .data(attachment.data, mimeType: attachment.mimeType))))
        }
        return ChatMessage(role: role, parts: parts)
    }
}
