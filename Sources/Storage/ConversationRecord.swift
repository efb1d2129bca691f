import Foundation
internal import GRDB
import SibylCore

/// A row of the `conversation` table.
struct ConversationRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "conversation"

    var conversation: Conversation

    init(_ conversation: Conversation) {
        self.conversation = conversation
    }

    init(row: Row) throws {
        let modeValue: String = try row.decode(forColumn: "mode")
        guard let mode = ConversationMode(storedValue: modeValue) else {
            throw StorageError.corruptRecord("unknown conversation mode '\(modeValue)'")
        }
        conversation = Conversation(
            id: try row.decodeUUID("id"),
            title: try row.decode(forColumn: "title"),
            persona: try row.decode(forColumn: "persona"),
            mode: mode,
            source: try row.decodeEnum(ConversationSource.self, "source"),
            createdAt: try row.decodeDate("created_at"),
            updatedAt: try row.decodeDate("updated_at")
        )
    }

    func encode(to container: inout PersistenceContainer) {
        container["id"] = conversation.id.storageKey
        container["title"] = conversation.title
        container["persona"] = conversation.persona
        container["mode"] = conversation.mode.storedValue
        container["source"] = conversation.source.rawValue
        container["created_at"] = Timestamp.milliseconds(conversation.createdAt)
        container["updated_at"] = Timestamp.milliseconds(conversation.updatedAt)
    }
}

extension UUID {
    /// How ids are written in the database: lowercase, as users see and type them.
    var storageKey: String { uuidString.lowercased() }
}

extension Row {
    /// Reads a UUID stored as text.
    func decodeUUID(_ column: String) throws -> UUID {
        let text: String = try decode(forColumn: column)
        guard let uuid = UUID(uuidString: text) else {
            throw StorageError.corruptRecord("'\(text)' in column \(column) is not a UUID")
        }
        return uuid
    }

    /// Reads a date stored as Unix milliseconds.
    func decodeDate(_ column: String) throws -> Date {
        Timestamp.date(milliseconds: try decode(Int64.self, forColumn: column))
    }

    /// Reads an enum stored by its raw value, reporting values a newer version may have written.
    func decodeEnum<Value: RawRepresentable>(_ type: Value.Type, _ column: String) throws -> Value where Value.RawValue == String {
        let raw: String = try decode(forColumn: column)
        guard let value = Value(rawValue: raw) else {
            throw StorageError.corruptRecord("unknown \(column) '\(raw)'")
        }
        return value
    }
}
