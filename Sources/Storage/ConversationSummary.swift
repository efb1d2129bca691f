public import Foundation
public import SibylCore

/// A conversation as listings show it: its header, its size and how it ends.
public struct ConversationSummary: Sendable, Hashable, Identifiable {
    /// The most characters a preview has, ellipsis included.
    public static let previewLength = 80

    /// The conversation's header.
    public var conversation: Conversation
    /// How many messages the conversation holds.
    public var messageCount: Int
    /// The last message's text on one line, at most `previewLength` characters; nil when no message has text.
    public var preview: String?

    /// The conversation's id.
    public var id: UUID { conversation.id }

    /// Creates a summary; `preview` is taken as given.
    public init(conversation: Conversation, messageCount: Int, preview: String?) {
        self.conversation = conversation
        self.messageCount = messageCount
        self.preview = preview
    }

    /// Shortens a message's text to a one-line preview.
    public static func preview(of text: String?) -> String? {
        guard let text else { return nil }
        // Listings are one line per conversation, so line breaks and runs of spaces collapse.
        let oneLine = text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        guard !oneLine.isEmpty else { return nil }
        guard oneLine.count > previewLength else { return oneLine }
        return oneLine.prefix(previewLength - 1).trimmingCharacters(in: .whitespaces) + "…"
    }
}
