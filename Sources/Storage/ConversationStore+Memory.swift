public import Foundation
internal import GRDB
public import SibylCore

extension ConversationStore {
    /// Saves a fact, replacing the one with the same id.
    public func save(_ fact: MemoryFact) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO memory_fact (id, text, status, conversation_id, message_id, created_at, accepted_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET text = excluded.text, status = excluded.status, accepted_at = excluded.accepted_at
                    """,
                arguments: [
                    fact.id.storageKey, fact.text, fact.status.rawValue, fact.conversationID?.storageKey, fact.messageID?.storageKey,
                    Timestamp.milliseconds(fact.createdAt), fact.acceptedAt.map(Timestamp.milliseconds),
                ]
            )
        }
    }

    /// The facts with this status (all when nil), newest first.
    public func memoryFacts(status: MemoryFact.Status?) throws -> [MemoryFact] {
        try read { db in
            let rows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM memory_fact WHERE ? IS NULL OR status = ? ORDER BY created_at DESC, rowid DESC",
                arguments: [status?.rawValue, status?.rawValue]
            )
            return try rows.map { row in
                MemoryFact(
                    id: try row.decodeUUID("id"), text: try row.decode(forColumn: "text"), status: try row.decodeEnum(MemoryFact.Status.self, "status"),
                    conversationID: try (row["conversation_id"] as String?).map { _ in try row.decodeUUID("conversation_id") },
                    messageID: try (row["message_id"] as String?).map { _ in try row.decodeUUID("message_id") },
                    createdAt: try row.decodeDate("created_at"),
                    acceptedAt: (row["accepted_at"] as Int64?).map(Timestamp.date(milliseconds:))
                )
            }
        }
    }

    /// When a conversation was last read for facts, or nil.
    public func memoryRead(conversationID: UUID) throws -> Date? {
        try read { db in
            try Int64.fetchOne(db, sql: "SELECT read_through FROM memory_read WHERE conversation_id = ?", arguments: [conversationID.storageKey])
                .map(Timestamp.date(milliseconds:))
        }
    }

    /// Notes that a conversation was read for facts up to `through`.
    public func setMemoryRead(conversationID: UUID, through: Date) throws {
        try write { db in
            try db.execute(
                sql: """
                    INSERT INTO memory_read (conversation_id, read_through) SELECT id, ? FROM conversation WHERE id = ?
                    ON CONFLICT(conversation_id) DO UPDATE SET read_through = excluded.read_through
                    """,
                arguments: [Timestamp.milliseconds(through), conversationID.storageKey]
            )
        }
    }

    /// Deletes a fact; false if there was none.
    @discardableResult
    public func deleteMemoryFact(id: UUID) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM memory_fact WHERE id = ?", arguments: [id.storageKey])
            guard db.changesCount > 0 else { return false }
            // The answers that cited it forget it too (their conversations are not touched: nothing new was said).
            let rows = try Row.fetchAll(db, sql: "SELECT id, citations FROM message WHERE citations LIKE ?", arguments: ["%\(id.uuidString)%"])
            for row in rows {
                let citations = MessageRecord.citations(from: row["citations"])
                let kept = citations.filter { $0.memory != id }
                guard kept.count != citations.count else { continue }
                let text = kept.isEmpty ? nil : (try? JSONEncoder().encode(kept)).map { String(decoding: $0, as: UTF8.self) }
                try db.execute(sql: "UPDATE message SET citations = ? WHERE id = ?", arguments: [text, row["id"] as DatabaseValue])
            }
            return true
        }
    }
}
