import Assistant
import Foundation
import Hummingbird
import SibylApp
import SibylCore

/// The account's memory: list the facts, write one, accept a proposed one, forget one.
struct MemoryRoutes: RouteCollectionAdding {
    let state: ServerState

    /// A fact the user writes.
    struct FactBody: Codable, Sendable {
        var text: String
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("memory") { request, context in
            let runtime = try await state.runtime(for: context)
            let status = try request.uri.queryParameters["status"].map { raw in
                guard let status = MemoryFact.Status(rawValue: String(raw)) else {
                    throw APIError.badRequest("status must be proposed or accepted, not '\(raw)'.")
                }
                return status
            }
            return JSONBody(try await runtime.memory.facts(status: status).map(Wire.MemoryFact.init))
        }
        group.post("memory") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(FactBody.self, limit: state.limits.jsonBodyBytes)
            return JSONBody(Wire.MemoryFact(try await runtime.memory.remember(body.text)), status: .created)
        }
        group.post("memory/:id/accept") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(Wire.MemoryFact(try await runtime.memory.accept(try context.parameters.require("id"))))
        }
        group.delete("memory/:id") { _, context in
            let runtime = try await state.runtime(for: context)
            try await runtime.memory.forget(try context.parameters.require("id"))
            return Response(status: .noContent)
        }
    }
}
