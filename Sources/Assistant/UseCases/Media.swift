public import Foundation
import SibylConfig
public import SibylCore
import Storage

/// An image Sibyl keeps: where it belongs, and its bytes' type and size.
public struct StoredImage: Sendable, Hashable {
    public var id: UUID
    public var conversationID: UUID
    public var messageID: UUID
    public var mimeType: String
    public var filename: String?
    public var byteCount: Int
    /// The prompt it was drawn from.
    public var prompt: String?
    public var createdAt: Date

    public init(id: UUID, conversationID: UUID, messageID: UUID, mimeType: String, filename: String?, byteCount: Int, prompt: String?, createdAt: Date) {
        self.id = id
        self.conversationID = conversationID
        self.messageID = messageID
        self.mimeType = mimeType
        self.filename = filename
        self.byteCount = byteCount
        self.prompt = prompt
        self.createdAt = createdAt
    }
}

/// Images drawn for a prompt, as kept in their conversation.
public struct ImagineResult: Sendable {
    public var conversation: Conversation
    public var message: Message
    public var images: [GeneratedImage]

    package init(conversation: Conversation, message: Message, images: [GeneratedImage]) {
        self.conversation = conversation
        self.message = message
        self.images = images
    }
}
