import Assistant
import Foundation
import Hummingbird
import SibylApp
import SibylConfig
import SibylCore

/// Settings (a change applies at once, without a restart) and API keys (write-only: a key is never
/// returned). On a server with accounts each account may keep keys of its own, used for its
/// requests before the shared ones administrators set.
struct SettingsRoutes: RouteCollectionAdding {
    let state: ServerState

    struct SettingValue: Codable, Sendable {
        var value: String
    }

    struct KeyValue: Codable, Sendable {
        var key: String
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("settings") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(runtime.admin.settings().map(Wire.Setting.init))
        }
        group.get("settings/:key") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(Wire.Setting(try runtime.admin.setting(try context.parameters.require("key"))))
        }
        group.put("settings/:key") { request, context in
            let runtime = try await state.runtime(for: context)
            let key = try Self.changeable(context.parameters.require("key"))
            let body = try await request.json(SettingValue.self, limit: state.limits.jsonBodyBytes)
            return await JSONBody(Wire.Setting(try runtime.admin.set(key, to: body.value)))
        }
        group.delete("settings/:key") { _, context in
            let runtime = try await state.runtime(for: context)
            return await JSONBody(Wire.Setting(try runtime.admin.unset(try Self.changeable(context.parameters.require("key")))))
        }
        // The MCP servers answers may call, and what each offers now.
        group.get("tools") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(await runtime.admin.tools())
        }
        group.get("keys") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(try runtime.admin.keys().map { info in
                var key = Wire.Key(info)
                // Others learn that a shared key is set, not which.
                if info.scope != .own, !context.isAdministrator { key.masked = "•••" }
                return key
            })
        }
        group.put("keys/:name") { request, context in
            let runtime = try await state.runtime(for: context)
            let scope = try Self.scope(request, context)
            let body = try await request.json(KeyValue.self, limit: state.limits.jsonBodyBytes)
            return await JSONBody(Wire.Key(try runtime.admin.setKey(try context.parameters.require("name"), to: body.key, scope: scope)))
        }
        group.delete("keys/:name") { request, context in
            let runtime = try await state.runtime(for: context)
            try await runtime.admin.removeKey(try context.parameters.require("name"), scope: try Self.scope(request, context))
            return Response(status: .noContent)
        }
    }

    /// A setting's name, when it may be changed over HTTP: `tools.servers` names commands the
    /// server's machine runs, so it is set on that machine (`sibyl tools add`), never from a browser.
    static func changeable(_ key: String) throws -> String {
        guard key != Setting<ToolServerList>.toolsServers.name else {
            throw APIError(
                .forbidden, code: "machine_only",
                "tools.servers names commands this server runs, so it is set on its machine: sibyl tools add NAME -- COMMAND, or sibyl tools add NAME URL."
            )
        }
        return key
    }

    /// Whose key a change is to: `?scope=own` (the default: the caller's account's own) or
    /// `?scope=shared` (everyone's; administrators only).
    static func scope(_ request: Request, _ context: SibylRequestContext) throws -> KeyScope {
        let text = request.uri.queryParameters.get("scope") ?? KeyScope.own.rawValue
        guard let scope = KeyScope(rawValue: text) else {
            throw APIError(.badRequest, code: "invalid_request", "scope is 'own' or 'shared', not '\(text)'.")
        }
        if scope == .shared, !context.isAdministrator {
            throw APIError(.forbidden, code: "admin_only", "Only an administrator may change the shared keys; your own keys are scope=own.")
        }
        return scope
    }
}
