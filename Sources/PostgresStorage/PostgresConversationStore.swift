import Foundation
import Logging
import PostgresNIO
import SibylCore
import Storage

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
                SELECT owner FROM cv_conversation UNION SELECT owner FROM cv_persona UNION SELECT owner FROM cv_log ORDER BY 1
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
    private func conversations(where condition: String, _ values: [any PostgresEncodable & Sendable]) async throws -> [Conversation] {
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
    private func filter(for query: ConversationQuery) -> (String, PostgresBindings) {
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
    private func updateConversation(_ id: UUID, _ statement: (PostgresConnection) async throws -> PostgresRowSequence) async throws {
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
            try await connection.query("DELETE FROM cv_log WHERE owner = \(owner)", logger: logger)
        }
    }

    // MARK: Archives

    public func archive(conversationID: UUID) async throws -> ConversationArchive {
        // One transaction: the header and the messages as they were at one moment.
        try await writing { connection in
            guard let conversation = try await owned(conversationID, on: connection) else { throw StorageError.notFound(conversationID.storageKeyText) }
            return ConversationArchive(conversation: conversation, messages: try await messages(where: "m.conversation_id = $2", conversationID, on: connection))
        }
    }

    public func importArchive(_ archive: ConversationArchive) async throws -> Conversation {
        var (conversation, messages) = try archive.restored()
        return try await writing { connection in
            if try await idsAreTaken(conversation: conversation, messages: messages, on: connection) {
                (conversation, messages) = ConversationArchive.withFreshIDs(conversation, messages)
            }
            try await connection.query("""
                INSERT INTO cv_conversation (id, owner, title, persona, mode, source, created_at, updated_at)
                VALUES (\(conversation.id), \(owner), \(conversation.title), \(conversation.persona), \(conversation.mode.storedValue),
                    \(conversation.source.rawValue), \(Timestamp.milliseconds(conversation.createdAt)), \(Timestamp.milliseconds(conversation.updatedAt)))
                """, logger: logger)
            for (index, message) in messages.enumerated() {
                try await insert(message, position: Int64(index + 1), on: connection)
            }
            return try await owned(conversation.id, on: connection) ?? conversation
        }
    }

    /// Whether any of the archive's ids is stored already (by anyone), or repeats within the archive.
    private func idsAreTaken(conversation: Conversation, messages: [Message], on connection: PostgresConnection) async throws -> Bool {
        let messageIDs = messages.map(\.id)
        let attachmentIDs = messages.flatMap { $0.attachments.map(\.id) }
        if Set(messageIDs).count != messageIDs.count || Set(attachmentIDs).count != attachmentIDs.count { return true }
        let rows = try await connection.query("""
            SELECT EXISTS (SELECT 1 FROM cv_conversation WHERE id = \(conversation.id))
                OR EXISTS (SELECT 1 FROM cv_message WHERE id = ANY(\(messageIDs)))
                OR EXISTS (SELECT 1 FROM cv_attachment WHERE id = ANY(\(attachmentIDs)))
            """, logger: logger)
        for try await taken in rows.decode(Bool.self) { return taken }
        return false
    }

    // MARK: Messages

    static let messageColumns = """
        m.id, m.conversation_id, m.role, m.text, m.model, m.prompt_tokens, m.completion_tokens, m.ttft_ms, m.total_ms, m.status, m.error, m.citations, m.created_at
        """

    static func message(from cells: PostgresRandomAccessRow) throws -> Message {
        let promptTokens = try cells[5].decode(Int32?.self), completionTokens = try cells[6].decode(Int32?.self)
        let ttft = try cells[7].decode(Int64?.self), total = try cells[8].decode(Int64?.self)
        let roleValue = try cells[2].decode(String.self), statusValue = try cells[9].decode(String.self)
        guard let role = ChatRole(rawValue: roleValue) else { throw StorageError.corruptRecord("unknown message role '\(roleValue)'") }
        guard let status = MessageStatus(rawValue: statusValue) else { throw StorageError.corruptRecord("unknown message status '\(statusValue)'") }
        let citations = try cells[11].decode(String?.self).flatMap { try? JSONDecoder().decode([Citation].self, from: Data($0.utf8)) } ?? []
        return Message(
            id: try cells[0].decode(UUID.self), conversationID: try cells[1].decode(UUID.self), role: role, text: try cells[3].decode(String.self),
            model: try cells[4].decode(String?.self),
            usage: promptTokens == nil && completionTokens == nil ? nil : TokenUsage(promptTokens: Int(promptTokens ?? 0), completionTokens: Int(completionTokens ?? 0)),
            timings: total.map { Timings(timeToFirstToken: ttft.map { .milliseconds($0) }, total: .milliseconds($0)) },
            status: status, error: try cells[10].decode(String?.self), citations: citations,
            createdAt: Timestamp.date(milliseconds: try cells[12].decode(Int64.self))
        )
    }

    /// This owner's messages matching `condition` ($1 is the owner, $2 the value), in conversation
    /// order, with their attachments.
    private func messages(where condition: String, _ value: UUID, on connection: PostgresConnection) async throws -> [Message] {
        var bindings = PostgresBindings(capacity: 2)
        bindings.append(owner)
        bindings.append(value)
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT \(Self.messageColumns) FROM cv_message m JOIN cv_conversation c ON c.id = m.conversation_id
            WHERE c.owner = $1 AND \(condition) ORDER BY m.conversation_id, m.position
            """, binds: bindings), logger: logger)
        var messages: [Message] = []
        for try await row in rows { messages.append(try Self.message(from: row.makeRandomAccess())) }
        guard !messages.isEmpty else { return [] }
        var attachments: [UUID: [Attachment]] = [:]
        let attachmentRows = try await connection.query("""
            SELECT message_id, id, kind, mime_type, filename, data FROM cv_attachment WHERE message_id = ANY(\(messages.map(\.id))) ORDER BY message_id, position
            """, logger: logger)
        for try await (messageID, id, kind, mimeType, filename, data) in attachmentRows.decode((UUID, UUID, String, String, String?, Data).self) {
            guard let kind = Attachment.Kind(rawValue: kind) else { throw StorageError.corruptRecord("unknown attachment kind '\(kind)'") }
            attachments[messageID, default: []].append(Attachment(id: id, kind: kind, mimeType: mimeType, filename: filename, data: data))
        }
        return messages.map { message in
            var message = message
            message.attachments = attachments[message.id] ?? []
            return message
        }
    }

    public func messages(in conversationID: UUID) async throws -> [Message] {
        try await calling {
            try await database.client.withConnection { connection in
                guard try await owned(conversationID, on: connection) != nil else { throw StorageError.notFound(conversationID.storageKeyText) }
                return try await messages(where: "m.conversation_id = $2", conversationID, on: connection)
            }
        }
    }

    public func message(id: UUID) async throws -> Message? {
        try await calling {
            try await database.client.withConnection { connection in try await messages(where: "m.id = $2", id, on: connection).first }
        }
    }

    public func append(_ message: Message) async throws {
        try await writing { connection in
            // Locking the conversation's row orders appends from every instance.
            let locked = try await connection.query("""
                SELECT 1 FROM cv_conversation WHERE id = \(message.conversationID) AND owner = \(owner) FOR UPDATE
                """, logger: logger)
            guard try await locked.decode(Int.self).first(where: { _ in true }) != nil else { throw StorageError.notFound(message.conversationID.storageKeyText) }
            let exists = try await connection.query("SELECT EXISTS (SELECT 1 FROM cv_message WHERE id = \(message.id))", logger: logger)
            for try await taken in exists.decode(Bool.self) where taken { throw StorageError.messageExists(message.id) }
            let next = try await connection.query("SELECT COALESCE(max(position), 0) + 1 FROM cv_message WHERE conversation_id = \(message.conversationID)", logger: logger)
            var position: Int64 = 1
            for try await value in next.decode(Int64.self) { position = value }
            try await insert(message, position: position, on: connection)
            try await touch(message.conversationID, on: connection)
        }
    }

    /// Inserts a message row and its attachments.
    private func insert(_ message: Message, position: Int64, on connection: PostgresConnection) async throws {
        let writer: Int32? = message.status == .pending ? lease.key : nil
        try await connection.query("""
            INSERT INTO cv_message (id, conversation_id, position, role, text, model, prompt_tokens, completion_tokens, ttft_ms, total_ms,
                status, error, citations, created_at, writer)
            VALUES (\(message.id), \(message.conversationID), \(position), \(message.role.rawValue), \(message.text), \(message.model),
                \(message.usage.map { Int32(clamping: $0.promptTokens) }), \(message.usage.map { Int32(clamping: $0.completionTokens) }),
                \(message.timings?.timeToFirstTokenMilliseconds), \(message.timings?.totalMilliseconds), \(message.status.rawValue), \(message.error),
                \(Self.citationsText(message.citations)), \(Timestamp.milliseconds(message.createdAt)), \(writer))
            """, logger: logger)
        for (index, attachment) in message.attachments.enumerated() {
            try await insert(attachment, of: message.id, position: index, on: connection)
        }
    }

    private func insert(_ attachment: Attachment, of messageID: UUID, position: Int, on connection: PostgresConnection) async throws {
        try await connection.query("""
            INSERT INTO cv_attachment (id, message_id, position, kind, mime_type, filename, byte_count, data)
            VALUES (\(attachment.id), \(messageID), \(Int32(position)), \(attachment.kind.rawValue), \(attachment.mimeType), \(attachment.filename),
                \(Int64(attachment.data.count)), \(attachment.data))
            """, logger: logger)
    }

    static func citationsText(_ citations: [Citation]) -> String? {
        guard !citations.isEmpty, let data = try? JSONEncoder().encode(citations) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    /// Moves a conversation's `updated_at` forward to now, never back.
    private func touch(_ conversationID: UUID, on connection: PostgresConnection) async throws {
        try await connection.query("""
            UPDATE cv_conversation SET updated_at = GREATEST(updated_at, \(Timestamp.milliseconds(Date()))) WHERE id = \(conversationID)
            """, logger: logger)
    }

    public func update(_ message: Message) async throws {
        try await writing { connection in
            let found = try await connection.query("""
                SELECT m.conversation_id FROM cv_message m JOIN cv_conversation c ON c.id = m.conversation_id
                WHERE m.id = \(message.id) AND c.owner = \(owner) FOR UPDATE OF m
                """, logger: logger)
            guard let conversationID = try await found.decode(UUID.self).first(where: { _ in true }) else { throw StorageError.messageNotFound(message.id) }
            let writer: Int32? = message.status == .pending ? lease.key : nil
            try await connection.query("""
                UPDATE cv_message SET role = \(message.role.rawValue), text = \(message.text), model = \(message.model),
                    prompt_tokens = \(message.usage.map { Int32(clamping: $0.promptTokens) }), completion_tokens = \(message.usage.map { Int32(clamping: $0.completionTokens) }),
                    ttft_ms = \(message.timings?.timeToFirstTokenMilliseconds), total_ms = \(message.timings?.totalMilliseconds),
                    status = \(message.status.rawValue), error = \(message.error), citations = \(Self.citationsText(message.citations)), writer = \(writer)
                WHERE id = \(message.id)
                """, logger: logger)
            try await replaceAttachments(of: message.id, with: message.attachments, on: connection)
            try await touch(conversationID, on: connection)
        }
    }

    /// Makes a message's stored attachments match `attachments`, rewriting only what changed.
    private func replaceAttachments(of messageID: UUID, with attachments: [Attachment], on connection: PostgresConnection) async throws {
        var stored: [UUID: (position: Int32, kind: String, mimeType: String, filename: String?, data: Data)] = [:]
        let rows = try await connection.query("SELECT id, position, kind, mime_type, filename, data FROM cv_attachment WHERE message_id = \(messageID)", logger: logger)
        for try await (id, position, kind, mimeType, filename, data) in rows.decode((UUID, Int32, String, String, String?, Data).self) {
            stored[id] = (position, kind, mimeType, filename, data)
        }
        for (position, attachment) in attachments.enumerated() {
            if let old = stored.removeValue(forKey: attachment.id) {
                if old.kind == attachment.kind.rawValue, old.mimeType == attachment.mimeType, old.filename == attachment.filename, old.data == attachment.data {
                    if old.position != Int32(position) {
                        try await connection.query("UPDATE cv_attachment SET position = \(Int32(position)) WHERE id = \(attachment.id)", logger: logger)
                    }
                    continue
                }
                try await connection.query("DELETE FROM cv_attachment WHERE id = \(attachment.id)", logger: logger)
            }
            try await insert(attachment, of: messageID, position: position, on: connection)
        }
        let removed = Array(stored.keys)
        if !removed.isEmpty {
            try await connection.query("DELETE FROM cv_attachment WHERE id = ANY(\(removed))", logger: logger)
        }
    }

    public func saveDrafts(_ drafts: [UUID: String]) async throws {
        guard !drafts.isEmpty else { return }
        let ids = Array(drafts.keys), texts = ids.map { drafts[$0] ?? "" }
        try await writing { connection in
            // Only answers still pending: a finished answer keeps its final text.
            try await connection.query("""
                UPDATE cv_message m SET text = d.text FROM unnest(\(ids)::uuid[], \(texts)::text[]) AS d(id, text)
                WHERE m.id = d.id AND m.status = 'pending'
                """, logger: logger)
        }
    }

    public func deleteMessage(id: UUID) async throws -> Bool {
        try await writing { connection in
            let rows = try await connection.query("""
                DELETE FROM cv_message m USING cv_conversation c WHERE m.id = \(id) AND c.id = m.conversation_id AND c.owner = \(owner) RETURNING 1
                """, logger: logger)
            return try await rows.decode(Int.self).first(where: { _ in true }) != nil
        }
    }

    public func settlePendingAnswers(in conversationID: UUID, reason: String) async throws -> Int {
        try await writing { connection in
            let key = lease.key
            try await connection.query(PostgresQuery(unsafeSQL: """
                UPDATE cv_message m SET status = 'failed', error = $1 FROM cv_conversation c
                WHERE m.conversation_id = $2 AND c.id = m.conversation_id AND c.owner = $3 AND m.status = 'pending'
                    AND (m.writer IS NULL OR m.writer = $4 OR m.writer NOT IN (\(InstanceLease.liveKeys)))
                """, binds: Self.bindings(reason, conversationID, owner, key)), logger: logger)
            let rows = try await connection.query("SELECT count(*) FROM cv_message WHERE conversation_id = \(conversationID) AND status = 'pending'", logger: logger)
            for try await count in rows.decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    static func bindings(_ values: any PostgresEncodable & Sendable...) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { try? bindings.append(value) }
        return bindings
    }

    /// The conversation, if it is this owner's.
    private func owned(_ conversationID: UUID, on connection: PostgresConnection) async throws -> Conversation? {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT \(Self.conversationColumns) FROM cv_conversation c WHERE c.id = $1 AND c.owner = $2
            """, binds: Self.bindings(conversationID, owner)), logger: logger)
        for try await row in rows { return try Self.conversation(from: row.makeRandomAccess()) }
        return nil
    }

    // MARK: Personas

    public func save(_ persona: Persona) async throws {
        let name = persona.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw StorageError.invalidPersonaName(persona.name) }
        let now = Timestamp.milliseconds(Date())
        try await writing { connection in
            try await connection.query("""
                INSERT INTO cv_persona (owner, name_key, name, system_prompt, model, temperature, summary, created_at, updated_at)
                VALUES (\(owner), \(name.lowercased()), \(name), \(persona.systemPrompt), \(persona.model), \(persona.temperature), \(persona.summary), \(now), \(now))
                ON CONFLICT (owner, name_key) DO UPDATE SET name = excluded.name, system_prompt = excluded.system_prompt, model = excluded.model,
                    temperature = excluded.temperature, summary = excluded.summary, updated_at = excluded.updated_at
                """, logger: logger)
        }
    }

    public func persona(named name: String) async throws -> Persona? {
        try await personas(where: "name_key = $2", name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()).first
    }

    public func personas() async throws -> [Persona] {
        try await personas(where: "TRUE", nil)
    }

    private func personas(where condition: String, _ key: String?) async throws -> [Persona] {
        try await calling {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(owner)
            if let key { bindings.append(key) }
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: """
                SELECT name, system_prompt, model, temperature, summary FROM cv_persona WHERE owner = $1 AND \(condition) ORDER BY name_key
                """, binds: bindings), logger: logger)
            var found: [Persona] = []
            for try await (name, prompt, model, temperature, summary) in rows.decode((String, String, String?, Double?, String?).self) {
                found.append(Persona(name: name, systemPrompt: prompt, model: model, temperature: temperature, summary: summary))
            }
            return found
        }
    }

    public func deletePersona(named name: String) async throws -> Bool {
        let key = name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        return try await writing { connection in
            let rows = try await connection.query("DELETE FROM cv_persona WHERE owner = \(owner) AND name_key = \(key) RETURNING 1", logger: logger)
            return try await rows.decode(Int.self).first(where: { _ in true }) != nil
        }
    }

    // MARK: Log

    public func log(_ level: LogEntry.Level, _ category: String, _ message: String, detailsJSON: String?) async throws {
        let details = detailsJSON.map { Redaction.redact($0) }
        try await calling {
            try await database.client.query("""
                INSERT INTO cv_log (owner, at, level, category, message, details)
                VALUES (\(owner), \(Timestamp.milliseconds(Date())), \(level.rawValue), \(category), \(Redaction.redact(message)), \(details))
                """, logger: logger)
        }
    }

    public func logEntries(minimumLevel: LogEntry.Level, since: Date?, until: Date?, operation: String?, matching text: String?, limit: Int?) async throws -> [LogEntry] {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(owner)
        bindings.append(LogEntry.Level.allCases.filter { $0 >= minimumLevel }.map(\.rawValue))
        var sql = "SELECT id, at, level, category, message, details FROM cv_log WHERE owner = $1 AND level = ANY($2)"
        if let since {
            bindings.append(Timestamp.milliseconds(since))
            sql += " AND at >= $\(bindings.count)"
        }
        if let until {
            bindings.append(Timestamp.milliseconds(until))
            sql += " AND at <= $\(bindings.count)"
        }
        if let operation, !operation.isEmpty {
            bindings.append(operation)
            bindings.append(Self.escapedForLike(operation) + ".%")
            sql += " AND (category = $\(bindings.count - 1) OR category LIKE $\(bindings.count) ESCAPE '!')"
        }
        if let text, !text.isEmpty {
            bindings.append("%" + Self.escapedForLike(text) + "%")
            let pattern = "$\(bindings.count)"
            sql += " AND (message ILIKE \(pattern) ESCAPE '!' OR category ILIKE \(pattern) ESCAPE '!' OR details ILIKE \(pattern) ESCAPE '!')"
        }
        sql += " ORDER BY at DESC, id DESC"
        if let limit {
            bindings.append(limit)
            sql += " LIMIT $\(bindings.count)"
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        return try await calling {
            var entries: [LogEntry] = []
            let rows = try await database.client.query(query, logger: logger)
            for try await (id, at, level, category, message, details) in rows.decode((Int64, Int64, String, String, String, String?).self) {
                entries.append(LogEntry(
                    id: id, date: Timestamp.date(milliseconds: at), level: LogEntry.Level(rawValue: level) ?? .info,
                    category: category, message: message, details: details
                ))
            }
            return entries.reversed()
        }
    }

    // MARK: Attachments

    public func generatedImages(limit: Int, offset: Int) async throws -> [StoredImageRecord] {
        try await calling {
            let rows = try await database.client.query("""
                SELECT a.id, a.kind, a.mime_type, a.filename, a.byte_count, m.id, m.conversation_id, m.created_at,
                    (SELECT q.text FROM cv_message q WHERE q.conversation_id = m.conversation_id AND q.role = 'user' AND q.position < m.position
                        ORDER BY q.position DESC LIMIT 1)
                FROM cv_attachment a JOIN cv_message m ON m.id = a.message_id JOIN cv_conversation c ON c.id = m.conversation_id
                WHERE c.owner = \(owner) AND a.kind = 'image' AND m.role = 'assistant'
                ORDER BY m.created_at DESC, a.position LIMIT \(limit) OFFSET \(offset)
                """, logger: logger)
            var images: [StoredImageRecord] = []
            for try await (id, kind, mimeType, filename, byteCount, messageID, conversationID, createdAt, prompt) in rows.decode(
                (UUID, String, String, String?, Int64, UUID, UUID, Int64, String?).self
            ) {
                images.append(StoredImageRecord(
                    attachment: AttachmentInfo(id: id, kind: Attachment.Kind(rawValue: kind) ?? .image, mimeType: mimeType, filename: filename),
                    conversationID: conversationID, messageID: messageID, byteCount: Int(byteCount), prompt: prompt,
                    createdAt: Timestamp.date(milliseconds: createdAt)
                ))
            }
            return images
        }
    }

    public func attachment(id: UUID) async throws -> Attachment? {
        try await calling {
            let rows = try await database.client.query("""
                SELECT a.kind, a.mime_type, a.filename, a.data FROM cv_attachment a JOIN cv_message m ON m.id = a.message_id
                JOIN cv_conversation c ON c.id = m.conversation_id WHERE a.id = \(id) AND c.owner = \(owner)
                """, logger: logger)
            for try await (kind, mimeType, filename, data) in rows.decode((String, String, String?, Data).self) {
                guard let kind = Attachment.Kind(rawValue: kind) else { throw StorageError.corruptRecord("unknown attachment kind '\(kind)'") }
                return Attachment(id: id, kind: kind, mimeType: mimeType, filename: filename, data: data)
            }
            return nil
        }
    }
}

extension UUID {
    /// The id as the stores print it: lowercase.
    var storageKeyText: String { uuidString.lowercased() }
}
