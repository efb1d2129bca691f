import Foundation
import Logging
import PostgresNIO
public import SibylCore
import Storage

extension PostgresConversationStore {
    public func save(_ persona: Persona) async throws {
        let name = persona.name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw StorageError.invalidPersonaName(persona.name) }
        let now = Timestamp.milliseconds(Date())
        let sampling = persona.sampling
        try await writing { connection in
            try await connection.query("""
                INSERT INTO cv_persona (owner, name_key, name, system_prompt, model, temperature, max_tokens, top_p, presence_penalty, frequency_penalty, summary, created_at, updated_at)
                VALUES (\(owner), \(name.lowercased()), \(name), \(persona.systemPrompt), \(persona.model), \(sampling.temperature), \(sampling.maxTokens), \(sampling.topP),
                    \(sampling.presencePenalty), \(sampling.frequencyPenalty), \(persona.summary), \(now), \(now))
                ON CONFLICT (owner, name_key) DO UPDATE SET name = excluded.name, system_prompt = excluded.system_prompt, model = excluded.model,
                    temperature = excluded.temperature, max_tokens = excluded.max_tokens, top_p = excluded.top_p, presence_penalty = excluded.presence_penalty,
                    frequency_penalty = excluded.frequency_penalty, summary = excluded.summary, updated_at = excluded.updated_at
                """, logger: logger)
        }
    }

    public func persona(named name: String) async throws -> Persona? {
        try await personas(where: "name_key = $2", name.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()).first
    }

    public func personas() async throws -> [Persona] {
        try await personas(where: "TRUE", nil)
    }

    func personas(where condition: String, _ key: String?) async throws -> [Persona] {
        try await calling {
            var bindings = PostgresBindings(capacity: 2)
            bindings.append(owner)
            if let key { bindings.append(key) }
            let rows = try await database.client.query(PostgresQuery(unsafeSQL: """
                SELECT name, system_prompt, model, temperature, max_tokens, top_p, presence_penalty, frequency_penalty, summary FROM cv_persona WHERE owner = $1 AND \(condition) ORDER BY name_key
                """, binds: bindings), logger: logger)
            var found: [Persona] = []
            for try await (name, prompt, model, temperature, maxTokens, topP, presence, frequency, summary)
                in rows.decode((String, String, String?, Double?, Int?, Double?, Double?, Double?, String?).self) {
                let sampling = Sampling(temperature: temperature, maxTokens: maxTokens, topP: topP, presencePenalty: presence, frequencyPenalty: frequency)
                found.append(Persona(name: name, systemPrompt: prompt, model: model, sampling: sampling, summary: summary))
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
}
