public import Foundation
import Logging
import PostgresNIO
public import SibylCore
import Storage

extension PostgresConversationStore {
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
    func messages(where condition: String, _ value: UUID, on connection: PostgresConnection) async throws -> [Message] {
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
    func insert(_ message: Message, position: Int64, on connection: PostgresConnection) async throws {
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

    func insert(_ attachment: Attachment, of messageID: UUID, position: Int, on connection: PostgresConnection) async throws {
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
    func touch(_ conversationID: UUID, on connection: PostgresConnection) async throws {
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
    func replaceAttachments(of messageID: UUID, with attachments: [Attachment], on connection: PostgresConnection) async throws {
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
    func owned(_ conversationID: UUID, on connection: PostgresConnection) async throws -> Conversation? {
        let rows = try await connection.query(PostgresQuery(unsafeSQL: """
            SELECT \(Self.conversationColumns) FROM cv_conversation c WHERE c.id = $1 AND c.owner = $2
            """, binds: Self.bindings(conversationID, owner)), logger: logger)
        for try await row in rows { return try Self.conversation(from: row.makeRandomAccess()) }
        return nil
    }
}
