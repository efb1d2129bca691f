public import Foundation
import Logging
import PostgresNIO
public import SibylCore
public import Storage

/// One owner's conversations in PostgreSQL: what `ConversationStore` keeps in a SQLite file, in
/// tables every `sibyl serve` instance on the database shares (see `conversationSchema`), so that
/// a conversation started through one instance continues through any other.
///
/// Every write is one transaction: a message with its attachments, an import with everything in
/// it. Appends to one conversation lock its row, so positions stay in order however many
/// instances append at once. Answers being written carry this process's lease key, so that only
/// answers whose writer died are ever marked failed (see `InstanceLease`).
public final class PostgresConversationStore: ConversationStorage, SharedTables {
    public let database: PostgresDatabase
    /// Whose conversations: "" for the local user, `users/ID` for an account.
    public let owner: String
    /// The lease whose key marks the answers this process writes.
    public let lease: InstanceLease
    /// Runs before each call: brings the schema up to date and takes the lease, once.
    let ready: @Sendable () async throws -> Void

    public init(database: PostgresDatabase, owner: String, lease: InstanceLease, ready: @escaping @Sendable () async throws -> Void = {}) {
        self.database = database
        self.owner = owner
        self.lease = lease
        self.ready = ready
    }

    /// Whose conversations, personas or logs the database holds ("" is the local user's).
    public static func owners(in database: PostgresDatabase) async throws -> [String] {
        try await database.reachable {
            var owners: [String] = []
            let rows = try await database.client.query("""
                SELECT owner FROM cv_conversation UNION SELECT owner FROM cv_persona UNION SELECT owner FROM cv_log UNION SELECT owner FROM cv_memory_fact ORDER BY 1
                """, logger: database.logger)
            for try await owner in rows.decode(String.self) { owners.append(owner) }
            return owners
        }
    }

    /// Other instances write here too: nothing read may be cached.
    public var changeCount: Int? { nil }

    // MARK: Conversations

    static let conversationColumns = "c.id, c.title, c.persona, c.mode, c.source, c.created_at, c.updated_at"

    static func conversation(from cells: PostgresRandomAccessRow, at start: Int = 0) throws -> Conversation {
        let modeValue = try cells[start + 3].decode(String.self)
        guard let mode = ConversationMode(storedValue: modeValue) else { throw StorageError.corruptRecord("unknown conversation mode '\(modeValue)'") }
        let sourceValue = try cells[start + 4].decode(String.self)
        guard let source = ConversationSource(rawValue: sourceValue) else { throw StorageError.corruptRecord("unknown conversation source '\(sourceValue)'") }
        return Conversation(
            id: try cells[start].decode(UUID.self), title: try cells[start + 1].decode(String?.self), persona: try cells[start + 2].decode(String.self),
            mode: mode, source: source,
            createdAt: Timestamp.date(milliseconds: try cells[start + 5].decode(Int64.self)),
            updatedAt: Timestamp.date(milliseconds: try cells[start + 6].decode(Int64.self))
        )
    }

    public func create(_ conversation: Conversation) async throws {
        try await writing { connection in
            let rows = try await connection.query("""
                INSERT INTO cv_conversation (id, owner, title, persona, mode, source, created_at, updated_at)
                VALUES (\(conversation.id), \(owner), \(conversation.title), \(conversation.persona), \(conversation.mode.storedValue),
                    \(conversation.source.rawValue), \(Timestamp.milliseconds(conversation.createdAt)), \(Timestamp.milliseconds(conversation.updatedAt)))
                ON CONFLICT (id) DO NOTHING RETURNING 1
                """, logger: logger)
            guard try await rows.decode(Int.self).first(where: { _ in true }) != nil else { throw StorageError.conversationExists(conversation.id) }
        }
    }

    public func conversation(id: UUID) async throws -> Conversation? {
        try await conversations(where: "c.id = $2", [id]).first
    }

    public func conversation(idPrefix: String) async throws -> Conversation {
        let trimmed = idPrefix.trimmingCharacters(in: .whitespacesAndNewlines)
        let hex = trimmed.lowercased().replacingOccurrences(of: "-", with: "")
        guard !hex.isEmpty, hex.count <= 32, hex.allSatisfy(\.isHexDigit) else { throw StorageError.invalidIDPrefix(trimmed) }
        let matches = try await conversations(where: "left(replace(c.id::text, '-', ''), \(hex.count)) = $2", [hex])
        switch matches.count {
        case 0: throw StorageError.notFound(trimmed)
        case 1: return matches[0]
        default: throw StorageError.ambiguous(trimmed, matches)
        }
    }

    /// This owner's conversations matching `condition` ($1 is the owner, the values $2…), newest first.
    func conversations(where condition: String, _ values: [any PostgresEncodable & Sendable]) async throws -> [Conversation] {
        try await calling {
            var bindings = PostgresBindings(capacity: values.count + 1)
            bindings.append(owner)
            for value in values { try bindings.append(value) }
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: """
                SELECT \(Self.conversationColumns) FROM cv_conversation c WHERE c.owner = $1 AND \(condition) ORDER BY c.updated_at DESC, c.seq DESC
                """, binds: bindings), logger: logger)
            var found: [Conversation] = []
            for try await row in rows { found.append(try Self.conversation(from: row.makeRandomAccess())) }
            return found
        }
    }

    public func conversations(_ query: ConversationQuery, limit: Int, offset: Int) async throws -> [ConversationSummary] {
        try await calling {
            var (filter, bindings) = filter(for: query)
            bindings.append(max(0, limit))
            bindings.append(max(0, offset))
            let count = bindings.count
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: """
                SELECT \(Self.conversationColumns),
                    (SELECT count(*) FROM cv_message m WHERE m.conversation_id = c.id),
                    (SELECT left(m.text, 400) FROM cv_message m WHERE m.conversation_id = c.id AND btrim(m.text) <> '' ORDER BY m.position DESC LIMIT 1)
                FROM cv_conversation c WHERE \(filter)
                ORDER BY c.updated_at DESC, c.seq DESC LIMIT $\(count - 1) OFFSET $\(count)
                """, binds: bindings), logger: logger)
            var summaries: [ConversationSummary] = []
            for try await row in rows {
                let cells = row.makeRandomAccess()
                summaries.append(ConversationSummary(
                    conversation: try Self.conversation(from: cells), messageCount: Int(try cells[7].decode(Int64.self)),
                    preview: ConversationSummary.preview(of: try cells[8].decode(String?.self))
                ))
            }
            return summaries
        }
    }

    public func countConversations(_ query: ConversationQuery) async throws -> Int {
        try await calling {
            let (filter, bindings) = filter(for: query)
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: "SELECT count(*) FROM cv_conversation c WHERE \(filter)", binds: bindings), logger: logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    /// The `WHERE` condition of a listing and its values ($1 is the owner).
    func filter(for query: ConversationQuery) -> (String, PostgresBindings) {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(owner)
        var clauses = ["c.owner = $1"]
        if let source = query.source {
            bindings.append(source.rawValue)
            clauses.append("c.source = $\(bindings.count)")
        }
        if let matching = query.matching {
            bindings.append("%" + Self.escapedForLike(matching) + "%")
            let pattern = "$\(bindings.count)"
            clauses.append("""
                (c.title ILIKE \(pattern) ESCAPE '!' OR EXISTS (SELECT 1 FROM cv_message m WHERE m.conversation_id = c.id AND m.text ILIKE \(pattern) ESCAPE '!'))
                """)
        }
        if let drawn = query.drawn {
            clauses.append("""
                \(drawn ? "" : "NOT ")EXISTS (SELECT 1 FROM cv_message m JOIN cv_attachment a ON a.message_id = m.id
                    WHERE m.conversation_id = c.id AND m.role = 'assistant' AND a.kind = 'image')
                """)
        }
        return (clauses.joined(separator: " AND "), bindings)
    }

    static func escapedForLike(_ text: String) -> String {
        text.replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%").replacingOccurrences(of: "_", with: "!_")
    }

    public func latestConversation(source: ConversationSource?) async throws -> Conversation? {
        try await conversations(ConversationQuery(source: source), limit: 1, offset: 0).first?.conversation
    }

    public func setTitle(_ title: String?, for conversationID: UUID) async throws {
        let trimmed = title?.trimmingCharacters(in: .whitespacesAndNewlines)
        let stored: String? = trimmed?.isEmpty == false ? trimmed : nil
        try await updateConversation(conversationID) { connection in
            try await connection.query("UPDATE cv_conversation SET title = \(stored) WHERE id = \(conversationID) AND owner = \(owner) RETURNING 1", logger: logger)
        }
    }

    public func setMode(_ mode: ConversationMode, for conversationID: UUID) async throws {
        try await updateConversation(conversationID) { connection in
            try await connection.query("UPDATE cv_conversation SET mode = \(mode.storedValue) WHERE id = \(conversationID) AND owner = \(owner) RETURNING 1", logger: logger)
        }
    }

    public func setPersona(_ persona: String, for conversationID: UUID) async throws {
        try await updateConversation(conversationID) { connection in
            try await connection.query("UPDATE cv_conversation SET persona = \(persona) WHERE id = \(conversationID) AND owner = \(owner) RETURNING 1", logger: logger)
        }
    }

    /// Metadata edits leave `updated_at` alone: listings are ordered by activity, not by renames.
    func updateConversation(_ id: UUID, _ statement: (PostgresConnection) async throws -> PostgresRowSequence) async throws {
        try await writing { connection in
            guard try await statement(connection).decode(Int.self).first(where: { _ in true }) != nil else { throw StorageError.notFound(id.storageKeyText) }
        }
    }

    public func delete(conversation conversationID: UUID) async throws -> Bool {
        try await writing { connection in
            let rows = try await connection.query("DELETE FROM cv_conversation WHERE id = \(conversationID) AND owner = \(owner) RETURNING 1", logger: logger)
            return try await rows.decode(Int.self).first(where: { _ in true }) != nil
        }
    }

    /// Deletes everything of this owner's (the account was removed).
    public func removeEverything() async throws {
        try await writing { connection in
            try await connection.query("DELETE FROM cv_conversation WHERE owner = \(owner)", logger: logger)
            try await connection.query("DELETE FROM cv_persona WHERE owner = \(owner)", logger: logger)
            try await connection.query("DELETE FROM cv_memory_fact WHERE owner = \(owner)", logger: logger)
            try await connection.query("DELETE FROM cv_log WHERE owner = \(owner)", logger: logger)
        }
    }

}

extension UUID {
    /// The id as the stores print it: lowercase.
    var storageKeyText: String { uuidString.lowercased() }
}
