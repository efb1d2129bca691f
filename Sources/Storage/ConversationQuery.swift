import Foundation
public import SibylCore
internal import GRDB

/// Which conversations a listing shows.
public struct ConversationQuery: Sendable, Hashable {
    /// Only those started from this surface.
    public var source: ConversationSource?
    /// Only those whose title or any message contains this text (case-insensitive).
    public var matching: String?

    /// Only those with images drawn in them (true), or only those without (false).
    public var drawn: Bool?

    public init(source: ConversationSource? = nil, matching: String? = nil, drawn: Bool? = nil) {
        self.source = source
        self.drawn = drawn
        let trimmed = matching?.trimmingCharacters(in: .whitespacesAndNewlines)
        self.matching = trimmed?.isEmpty == false ? trimmed : nil
    }

    /// The `WHERE` clause (with a leading space, or empty) and its arguments.
    func sqlFilter() -> (String, StatementArguments) {
        var clauses: [String] = []
        var arguments: StatementArguments = []
        if let source {
            clauses.append("conversation.source = ?")
            arguments += [source.rawValue]
        }
        if let matching {
            let pattern = "%" + matching.replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%").replacingOccurrences(of: "_", with: "!_") + "%"
            clauses.append("""
                (conversation.title LIKE ? ESCAPE '!' OR EXISTS (SELECT 1 FROM message
                    WHERE message.conversation_id = conversation.id AND message.text LIKE ? ESCAPE '!'))
                """)
            arguments += [pattern, pattern]
        }
        if let drawn {
            // Drawn images are an answer's attachments (a person's photos are their question's).
            clauses.append("""
                \(drawn ? "" : "NOT ")EXISTS (SELECT 1 FROM message JOIN attachment ON attachment.message_id = message.id
                    WHERE message.conversation_id = conversation.id AND message.role = 'assistant' AND attachment.kind = 'image')
                """)
        }
        return (clauses.isEmpty ? "" : " WHERE " + clauses.joined(separator: " AND "), arguments)
    }
}
