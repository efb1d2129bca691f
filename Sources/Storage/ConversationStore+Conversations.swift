public import Foundation
internal import GRDB
public import SibylCore

extension ConversationStore {
    /// Stores a new conversation; fails with `conversationExists` if its id is taken.
    public func create(_ conversation: Conversation) throws {
        try write { db in
            guard try !conversationExists(db, id: conversation.id) else {
                throw StorageError.conversationExists(conversation.id)
            }
            try ConversationRecord(conversation).insert(db)
        }
    }

    /// The conversation with this id, or nil.
    public func conversation(id: UUID) throws -> Conversation? {
        try read { db in
            try ConversationRecord.fetchOne(db, key: id.storageKey)?.conversation
        }
    }

    /// The one conversation whose id starts with `idPrefix`, as users type it from a listing.
    ///
    /// Case and hyphens are ignored. Throws `notFound` when nothing matches, `ambiguous` with the
    /// candidates (most recently updated first) when several do, `invalidIDPrefix` for non-hex text.
    public func conversation(idPrefix: String) throws -> Conversation {
        let trimmed = idPrefix.trimmingCharacters(in: .whitespacesAndNewlines)
        let hex = trimmed.lowercased().replacingOccurrences(of: "-", with: "")
        guard !hex.isEmpty, hex.count <= 32, hex.allSatisfy(\.isHexDigit) else {
            throw StorageError.invalidIDPrefix(trimmed)
        }
        let matches = try read { db in
            try ConversationRecord.fetchAll(
                db,
                sql: """
                    SELECT * FROM conversation
                    WHERE substr(replace(id, '-', ''), 1, ?) = ?
                    ORDER BY updated_at DESC, rowid DESC
                    """,
                arguments: [hex.count, hex]
            ).map(\.conversation)
        }
        switch matches.count {
        case 0: throw StorageError.notFound(trimmed)
        case 1: return matches[0]
        default: throw StorageError.ambiguous(trimmed, matches)
        }
    }

    /// Conversations, most recently updated first, with their message counts and previews.
    public func conversations(limit: Int? = nil, source: ConversationSource? = nil) throws -> [ConversationSummary] {
        var sql = """
            SELECT conversation.*,
                (SELECT COUNT(*) FROM message WHERE message.conversation_id = conversation.id) AS message_count,
                (SELECT substr(message.text, 1, 400) FROM message
                    WHERE message.conversation_id = conversation.id AND trim(message.text) <> ''
                    ORDER BY message.position DESC LIMIT 1) AS last_text
            FROM conversation
            """
        var arguments: StatementArguments = []
        if let source {
            sql += " WHERE source = ?"
            arguments += [source.rawValue]
        }
        // rowid breaks ties between conversations updated in the same millisecond: newest insert first.
        sql += " ORDER BY updated_at DESC, rowid DESC"
        if let limit {
            sql += " LIMIT ?"
            arguments += [max(0, limit)]
        }
        return try read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                ConversationSummary(
                    conversation: try ConversationRecord(row: row).conversation,
                    messageCount: try row.decode(forColumn: "message_count"),
                    preview: ConversationSummary.preview(of: try row.decode(forColumn: "last_text"))
                )
            }
        }
    }

    /// Conversations that match a query, most recently updated first, a page at a time.
    public func conversations(_ query: ConversationQuery, limit: Int, offset: Int = 0) throws -> [ConversationSummary] {
        let (filter, arguments) = query.sqlFilter()
        let sql = """
            SELECT conversation.*,
                (SELECT COUNT(*) FROM message WHERE message.conversation_id = conversation.id) AS message_count,
                (SELECT substr(message.text, 1, 400) FROM message
                    WHERE message.conversation_id = conversation.id AND trim(message.text) <> ''
                    ORDER BY message.position DESC LIMIT 1) AS last_text
            FROM conversation\(filter)
            ORDER BY updated_at DESC, rowid DESC
            LIMIT ? OFFSET ?
            """
        return try read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments + [max(0, limit), max(0, offset)]).map { row in
                ConversationSummary(
                    conversation: try ConversationRecord(row: row).conversation,
                    messageCount: try row.decode(forColumn: "message_count"),
                    preview: ConversationSummary.preview(of: try row.decode(forColumn: "last_text"))
                )
            }
        }
    }

    /// How many conversations match a query.
    public func countConversations(_ query: ConversationQuery) throws -> Int {
        let (filter, arguments) = query.sqlFilter()
        return try read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM conversation\(filter)", arguments: arguments) ?? 0
        }
    }

    /// The most recently updated conversation, from one source or any.
    public func latestConversation(source: ConversationSource? = nil) throws -> Conversation? {
        try conversations(limit: 1, source: source).first?.conversation
    }

    /// Renames a conversation; a blank title clears it.
    public func setTitle(_ title: String?, for conversationID: UUID) throws {
        let trimmed = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        let stored: String? = trimmed?.isEmpty == false ? trimmed : nil
        try updateConversation(conversationID, set: "title = ?", [stored])
    }

    /// Switches a conversation between chat and translation.
    public func setMode(_ mode: ConversationMode, for conversationID: UUID) throws {
        try updateConversation(conversationID, set: "mode = ?", [mode.storedValue])
    }

    /// Makes the named persona answer in this conversation from now on.
    public func setPersona(_ persona: String, for conversationID: UUID) throws {
        try updateConversation(conversationID, set: "persona = ?", [persona])
    }

    /// Deletes a conversation with its messages and their attachment files; false if there was none.
    @discardableResult
    public func delete(conversation conversationID: UUID) throws -> Bool {
        var paths: [String] = []
        let deleted = try write { db in
            paths = try String.fetchAll(
                db,
                sql: """
                    SELECT attachment.path FROM attachment JOIN message ON message.id = attachment.message_id
                    WHERE message.conversation_id = ? AND attachment.path IS NOT NULL
                    """,
                arguments: [conversationID.storageKey]
            )
            try db.execute(sql: "DELETE FROM conversation WHERE id = ?", arguments: [conversationID.storageKey])
            return db.changesCount > 0
        }
        // Files go only once the rows are gone for good: a rolled-back delete keeps them.
        files?.remove(paths)
        return deleted
    }

    // MARK: - Helpers

    func conversationExists(_ db: Database, id: UUID) throws -> Bool {
        try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM conversation WHERE id = ?)", arguments: [id.storageKey]) ?? false
    }

    /// Moves a conversation's `updated_at` forward to now, never back.
    func touchConversation(_ db: Database, id: UUID) throws {
        try db.execute(
            sql: "UPDATE conversation SET updated_at = MAX(updated_at, ?) WHERE id = ?",
            arguments: [Timestamp.milliseconds(Date()), id.storageKey]
        )
    }

    /// Metadata edits leave `updated_at` alone: listings are ordered by activity, not by renames.
    private func updateConversation(_ id: UUID, set assignment: String, _ arguments: StatementArguments) throws {
        try write { db in
            try db.execute(sql: "UPDATE conversation SET \(assignment) WHERE id = ?", arguments: arguments + [id.storageKey])
            guard db.changesCount > 0 else { throw StorageError.notFound(id.storageKey) }
        }
    }
}
