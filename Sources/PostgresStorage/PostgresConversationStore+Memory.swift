public import Foundation
import Logging
import PostgresNIO
public import SibylCore
public import Storage

extension PostgresConversationStore: MemoryStorage {
    public func save(_ fact: MemoryFact) async throws {
        let created = Timestamp.milliseconds(fact.createdAt)
        let accepted = fact.acceptedAt.map(Timestamp.milliseconds)
        try await writing { connection in
            // An id another owner holds is never touched: the update applies to this owner's row only.
            try await connection.query("""
                INSERT INTO cv_memory_fact (id, owner, text, status, conversation_id, message_id, created_at, accepted_at)
                VALUES (\(fact.id), \(owner), \(fact.text), \(fact.status.rawValue), \(fact.conversationID), \(fact.messageID), \(created), \(accepted))
                ON CONFLICT (id) DO UPDATE SET text = excluded.text, status = excluded.status, accepted_at = excluded.accepted_at
                WHERE cv_memory_fact.owner = excluded.owner
                """, logger: logger)
        }
    }

    public func memoryFacts(status: MemoryFact.Status?) async throws -> [MemoryFact] {
        try await calling {
            let rows = try await database.client.query("""
                SELECT id, text, status, conversation_id, message_id, created_at, accepted_at FROM cv_memory_fact
                WHERE owner = \(owner) AND (\(status?.rawValue)::text IS NULL OR status = \(status?.rawValue))
                ORDER BY created_at DESC, id
                """, logger: logger)
            var facts: [MemoryFact] = []
            for try await (id, text, rawStatus, conversationID, messageID, created, accepted)
                in rows.decode((UUID, String, String, UUID?, UUID?, Int64, Int64?).self) {
                guard let status = MemoryFact.Status(rawValue: rawStatus) else { throw StorageError.corruptRecord("unknown status '\(rawStatus)'") }
                facts.append(MemoryFact(
                    id: id, text: text, status: status, conversationID: conversationID, messageID: messageID,
                    createdAt: Timestamp.date(milliseconds: created), acceptedAt: accepted.map(Timestamp.date(milliseconds:))
                ))
            }
            return facts
        }
    }

    public func memoryRead(conversationID: UUID) async throws -> Date? {
        try await calling {
            let rows = try await database.client.query("""
                SELECT r.read_through FROM cv_memory_read r JOIN cv_conversation c ON c.id = r.conversation_id
                WHERE r.conversation_id = \(conversationID) AND c.owner = \(owner)
                """, logger: logger)
            return try await rows.decode(Int64.self).first(where: { _ in true }).map(Timestamp.date(milliseconds:))
        }
    }

    public func setMemoryRead(conversationID: UUID, through: Date) async throws {
        let milliseconds = Timestamp.milliseconds(through)
        try await writing { connection in
            try await connection.query("""
                INSERT INTO cv_memory_read (conversation_id, read_through)
                SELECT id, \(milliseconds) FROM cv_conversation WHERE id = \(conversationID) AND owner = \(owner)
                ON CONFLICT (conversation_id) DO UPDATE SET read_through = excluded.read_through
                """, logger: logger)
        }
    }

    public func deleteMemoryFact(id: UUID) async throws -> Bool {
        try await writing { connection in
            let rows = try await connection.query("DELETE FROM cv_memory_fact WHERE id = \(id) AND owner = \(owner) RETURNING 1", logger: logger)
            guard try await rows.decode(Int.self).first(where: { _ in true }) != nil else { return false }
            // The owner's answers that cited it forget it too (their conversations are not touched).
            let pattern = "%\(id.uuidString)%"
            let citing = try await connection.query("""
                SELECT m.id, m.citations FROM cv_message m JOIN cv_conversation c ON c.id = m.conversation_id
                WHERE c.owner = \(owner) AND m.citations LIKE \(pattern)
                """, logger: logger)
            var changed: [(UUID, String?)] = []
            for try await (messageID, text) in citing.decode((UUID, String?).self) {
                let citations = text.flatMap { try? JSONDecoder().decode([Citation].self, from: Data($0.utf8)) } ?? []
                let kept = citations.filter { $0.memory != id }
                if kept.count != citations.count { changed.append((messageID, Self.citationsText(kept))) }
            }
            for (messageID, text) in changed {
                try await connection.query("UPDATE cv_message SET citations = \(text) WHERE id = \(messageID)", logger: logger)
            }
            return true
        }
    }
}
