import Assistant
import Foundation
public import SibylCore

extension SibylRuntime.Conversations {
    /// Every persona, built-in first.
    public func personas() async throws -> [Persona] {
        try await runtime.engine.personas.all()
    }

    /// A persona by name.
    public func persona(named name: String) async throws -> Persona {
        try await runtime.engine.personas.persona(named: name)
    }

    /// Adds or replaces a persona of the user's own.
    @discardableResult
    public func savePersona(_ persona: Persona) async throws -> Persona {
        let prompt = persona.systemPrompt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !prompt.isEmpty else { throw AssistantError.emptyPersonaPrompt }
        do { try persona.sampling.check() } catch { throw AssistantError.invalidSampling(error) }
        var saved = persona
        saved.systemPrompt = prompt
        saved.isBuiltIn = false
        try await runtime.engine.personas.save(saved)
        await runtime.log(.info, .personasSave, "saved persona \(saved.name)")
        return try await runtime.engine.personas.persona(named: saved.name)
    }

    /// Saves a copy of `original` (a built-in one too) under `name`, with what is given instead of
    /// the original's; refuses a name another persona already has.
    @discardableResult
    public func copyPersona(_ original: Persona, as name: String, prompt: String? = nil, model: String? = nil, sampling: Sampling = Sampling(), summary: String? = nil) async throws -> Persona {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        if try await personas().contains(where: { $0.name.lowercased() == trimmed.lowercased() }) {
            throw AssistantError.personaExists(trimmed)
        }
        let copy = Persona(
            name: trimmed, systemPrompt: prompt ?? original.systemPrompt, model: model ?? original.model,
            sampling: sampling.over(original.sampling), summary: summary ?? original.summary
        )
        return try await savePersona(copy)
    }

    /// Removes a persona of the user's own (built-ins cannot be removed).
    public func removePersona(named name: String) async throws {
        try await runtime.engine.personas.remove(named: name)
        await runtime.log(.info, .personasRemove, "removed persona \(name)")
    }
}
