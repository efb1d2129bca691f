import Foundation
internal import GRDB
import SibylCore

/// A row of the `persona` table.
struct PersonaRecord: FetchableRecord, PersistableRecord {
    static let databaseTableName = "persona"

    var persona: Persona
    var createdAt: Date
    var updatedAt: Date

    init(_ persona: Persona, createdAt: Date, updatedAt: Date) {
        self.persona = persona
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    init(row: Row) throws {
        persona = Persona(
            name: try row.decode(forColumn: "name"),
            systemPrompt: try row.decode(forColumn: "system_prompt"),
            model: try row.decode(forColumn: "model"),
            sampling: Sampling(
                temperature: try row.decode(forColumn: "temperature"),
                maxTokens: try row.decode(forColumn: "max_tokens"),
                topP: try row.decode(forColumn: "top_p"),
                presencePenalty: try row.decode(forColumn: "presence_penalty"),
                frequencyPenalty: try row.decode(forColumn: "frequency_penalty")
            ),
            summary: try row.decode(forColumn: "summary"),
            isBuiltIn: false
        )
        createdAt = try row.decodeDate("created_at")
        updatedAt = try row.decodeDate("updated_at")
    }

    func encode(to container: inout PersistenceContainer) {
        container["name_key"] = Self.key(for: persona.name)
        container["name"] = persona.name
        container["system_prompt"] = persona.systemPrompt
        container["model"] = persona.model
        container["temperature"] = persona.sampling.temperature
        container["max_tokens"] = persona.sampling.maxTokens
        container["top_p"] = persona.sampling.topP
        container["presence_penalty"] = persona.sampling.presencePenalty
        container["frequency_penalty"] = persona.sampling.frequencyPenalty
        container["summary"] = persona.summary
        container["created_at"] = Timestamp.milliseconds(createdAt)
        container["updated_at"] = Timestamp.milliseconds(updatedAt)
    }

    /// The case-insensitive identity of a persona name.
    static func key(for name: String) -> String {
        name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
    }
}
