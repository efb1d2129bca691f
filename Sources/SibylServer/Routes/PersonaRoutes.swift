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
        var summary: String?
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
            let saved = try await runtime.conversations.savePersona(Persona(name: name, systemPrompt: body.systemPrompt, model: body.model, temperature: body.temperature, summary: body.summary))
            return JSONBody(Wire.Persona(saved))
        }
        group.delete("personas/:name") { _, context in
            let runtime = try await state.runtime(for: context)
            try await runtime.conversations.removePersona(named: try context.parameters.require("name"))
            return Response(status: .noContent)
        }
    }
}
