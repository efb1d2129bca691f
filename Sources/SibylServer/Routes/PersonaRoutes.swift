import Assistant
import Foundation
import Hummingbird
import SibylApp
import SibylCore

/// Personas: list, add or replace one of the user's own, remove it.
struct PersonaRoutes: RouteCollectionAdding {
    let state: ServerState

    /// A persona as the user writes it.
    struct PersonaBody: Codable, Sendable {
        var systemPrompt: String
        var model: String?
        var temperature: Double?
        var maxTokens: Int?
        var topP: Double?
        var presencePenalty: Double?
        var frequencyPenalty: Double?
        var summary: String?

        var sampling: Sampling {
            Sampling(temperature: temperature, maxTokens: maxTokens, topP: topP, presencePenalty: presencePenalty, frequencyPenalty: frequencyPenalty)
        }
    }

    /// The name a copy is saved under.
    struct CopyBody: Codable, Sendable {
        var name: String
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("personas") { _, context in
            let runtime = try await state.runtime(for: context)
            return await JSONBody(try runtime.conversations.personas().map(Wire.Persona.init))
        }
        group.get("personas/:name") { _, context in
            let runtime = try await state.runtime(for: context)
            return await JSONBody(Wire.Persona(try runtime.conversations.persona(named: try context.parameters.require("name"))))
        }
        group.put("personas/:name") { request, context in
            let runtime = try await state.runtime(for: context)
            let name = try context.parameters.require("name")
            let body = try await request.json(PersonaBody.self, limit: state.limits.jsonBodyBytes)
            let saved = try await runtime.conversations.savePersona(Persona(name: name, systemPrompt: body.systemPrompt, model: body.model.flatMap { $0.isEmpty ? nil : $0 }, sampling: body.sampling, summary: body.summary))
            return JSONBody(Wire.Persona(saved))
        }
        group.post("personas/:name/copy") { request, context in
            let runtime = try await state.runtime(for: context)
            let original = try await runtime.conversations.persona(named: try context.parameters.require("name"))
            let body = try await request.json(CopyBody.self, limit: state.limits.jsonBodyBytes)
            let copy = try await runtime.conversations.copyPersona(original, as: body.name)
            return JSONBody(Wire.Persona(copy), status: .created)
        }
        group.delete("personas/:name") { _, context in
            let runtime = try await state.runtime(for: context)
            try await runtime.conversations.removePersona(named: try context.parameters.require("name"))
            return Response(status: .noContent)
        }
    }
}
