import Foundation
import SibylCore
public import Storage

/// A page of conversations.
public struct ConversationPage: Sendable {
    public var items: [ConversationSummary]
    /// How many conversations match in all.
    public var total: Int
    public var offset: Int
    public var limit: Int

    package init(items: [ConversationSummary], total: Int, offset: Int, limit: Int) {
        self.items = items
        self.total = total
        self.offset = offset
        self.limit = limit
    }
}

/// How a conversation is exported.
public enum ConversationExportFormat: String, Sendable, CaseIterable, Codable {
    /// Sibyl's archive: everything, attachments included, and re-importable.
    case json
    /// A transcript to read.
    case markdown
}
