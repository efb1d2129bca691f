import Foundation

/// Who wrote a message in a chat.
public enum ChatRole: String, Sendable, Codable, CaseIterable {
    case system
    case user
    case assistant
}

/// An image handed to a vision-capable chat model.
public struct ImageInput: Sendable, Hashable, Codable {
    /// Where the image comes from: bytes we hold, or a URL the provider fetches.
    public enum Source: Sendable, Hashable, Codable {
        case data(Data, mimeType: String)
        case url(String)
    }

    /// How closely the model should look (`auto`, `low`, `high`), as the OpenAI API defines it.
    public enum Detail: String, Sendable, Codable {
        case auto, low, high
    }

    public var source: Source
    public var detail: Detail?

    public init(source: Source, detail: Detail? = nil) {
        self.source = source
        self.detail = detail
    }

    /// The image as a URL string: `data:` URLs for bytes we hold.
    public var urlString: String {
        switch source {
        case .url(let url): url
        case .data(let data, let mimeType): "data:\(mimeType);base64,\(data.base64EncodedString())"
        }
    }
}

/// One part of a message's content: text or an image.
public enum ContentPart: Sendable, Hashable, Codable {
    case text(String)
    case image(ImageInput)
}

/// A message sent to a chat model.
public struct ChatMessage: Sendable, Hashable, Codable {
    public var role: ChatRole
    public var parts: [ContentPart]
    /// The tools an assistant message asked to call (its text may be empty then).
    public var toolCalls: [ChatToolCall] = []
    /// For a tool's result: the call it answers. Such a message goes to the model as the tool's
    /// (role `tool`), whatever its `role`.
    public var toolCallID: String?

    public init(role: ChatRole, parts: [ContentPart]) {
        self.role = role
        self.parts = parts
    }

    /// A tool's result, answering the call `id`.
    public static func toolResult(for id: String, text: String) -> ChatMessage {
        var message = ChatMessage(role: .user, text: text)
        message.toolCallID = id
        return message
    }

    /// An assistant message that calls tools.
    public static func callingTools(_ calls: [ChatToolCall], text: String = "") -> ChatMessage {
        var message = ChatMessage(role: .assistant, text: text)
        message.toolCalls = calls
        return message
    }

    public init(role: ChatRole, text: String) {
        self.init(role: role, parts: [.text(text)])
    }

    public static func system(_ text: String) -> ChatMessage { ChatMessage(role: .system, text: text) }
    public static func user(_ text: String) -> ChatMessage { ChatMessage(role: .user, text: text) }
    public static func assistant(_ text: String) -> ChatMessage { ChatMessage(role: .assistant, text: text) }

    /// The text parts joined; images are left out.
    public var text: String {
        parts.compactMap { part in
            if case .text(let text) = part { return text }
            return nil
        }.joined(separator: "\n")
    }

    /// Whether the message carries at least one image.
    public var hasImages: Bool {
        parts.contains { if case .image = $0 { true } else { false } }
    }
}
