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
        if let temperature = persona.temperature, !(0...2).contains(temperature) { throw AssistantError.invalidTemperature(temperature) }
        var saved = persona
        saved.systemPrompt = prompt
        saved.isBuiltIn = false
        try await runtime.engine.personas.save(saved)
        await runtime.log(.info, .personasSave, "saved persona \(saved.name)")
        return try await runtime.engine.personas.persona(named: saved.name)
    }

    /// Removes a persona of the user's own (built-ins cannot be removed).
    public func removePersona(named name: String) async throws {
        try await runtime.engine.personas.remove(named: name)
        await runtime.log(.info, .personasRemove, "removed persona \(name)")
    }
}
