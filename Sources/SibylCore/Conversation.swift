import Foundation

/// Where a conversation was started.
public enum ConversationSource: String, Sendable, Hashable, Codable, CaseIterable {
    /// `noa`: asked through Brilliant's Noa phone app (its Custom Server setting); `captions`: the
    /// transcript of live captions on glasses; `mcp`: asked by another agent through Sibyl's MCP server.
    case cli, web, glasses, noa, captions, mcp
}

/// How the assistant treats what the user says.
public enum ConversationMode: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Ordinary chat under the conversation's persona.
    case chat
    /// Everything the user says is translated into the target language.
    case translator(target: String)

    /// Parses the stored form: `chat` or `translator:LANG`.
    public init?(storedValue: String) {
        if storedValue == "chat" {
            self = .chat
        } else if storedValue.hasPrefix("translator:") {
            let target = String(storedValue.dropFirst("translator:".count))
            guard !target.isEmpty else { return nil }
            self = .translator(target: target)
        } else {
            return nil
        }
    }

    public var storedValue: String {
        switch self {
        case .chat: "chat"
        case .translator(let target): "translator:\(target)"
        }
    }

    public var description: String {
        switch self {
        case .chat: "chat"
        case .translator(let target): "translator → \(target)"
        }
    }
}

/// A conversation's header: everything but its messages.
public struct Conversation: Sendable, Hashable, Identifiable {
    public var id: UUID
    public var title: String?
    public var persona: String
    public var mode: ConversationMode
    public var source: ConversationSource
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID = UUID(),
        title: String? = nil,
        persona: String = "assistant",
        mode: ConversationMode = .chat,
        source: ConversationSource = .cli,
        createdAt: Date = Date(),
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.title = title
        self.persona = persona
        self.mode = mode
        self.source = source
        self.createdAt = createdAt
        self.updatedAt = updatedAt ?? createdAt
    }
}
