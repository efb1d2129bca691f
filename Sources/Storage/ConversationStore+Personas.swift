import Foundation
internal import GRDB
public import SibylCore

extension ConversationStore {
    /// Saves a user-defined persona, replacing the one with the same name in any letter case.
    ///
    /// The name is stored trimmed and as last spelled; stored personas are never built-in.
    public func save(_ persona: Persona) throws {
        let name = persona.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw StorageError.invalidPersonaName(persona.name) }
        var stored = persona
        stored.name = name
        stored.isBuiltIn = false
        try write { db in
            let key = PersonaRecord.key(for: name)
            let now = Date()
            let createdAt = try Int64.fetchOne(db, sql: "SELECT created_at FROM persona WHERE name_key = ?", arguments: [key])
            try PersonaRecord(stored, createdAt: createdAt.map(Timestamp.date(milliseconds:)) ?? now, updatedAt: now).save(db)
        }
    }

    /// The user-defined persona with this name in any letter case, or nil.
    public func persona(named name: String) throws -> Persona? {
        try read { db in
            try PersonaRecord.fetchOne(db, key: PersonaRecord.key(for: name))?.persona
        }
    }

    /// All user-defined personas, sorted by name.
    public func personas() throws -> [Persona] {
        try read { db in
            try PersonaRecord.fetchAll(db, sql: "SELECT * FROM persona ORDER BY name_key").map(\.persona)
        }
    }

    /// Deletes the user-defined persona with this name in any letter case; false if there was none.
    @discardableResult
    public func deletePersona(named name: String) throws -> Bool {
        try write { db in
            try PersonaRecord.deleteOne(db, key: PersonaRecord.key(for: name))
        }
    }
}
