import Assistant
import Foundation
import Hummingbird

/// Settings (a change applies at once, without a restart) and API keys (write-only: a key is never returned).
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
            let runtime = try state.runtime(for: context)
            return JSONBody(runtime.settingsList().map(Wire.Setting.init))
        }
        group.get("settings/:key") { _, context in
            let runtime = try state.runtime(for: context)
            return JSONBody(Wire.Setting(try runtime.setting(try context.parameters.require("key"))))
        }
        group.put("settings/:key") { request, context in
            let runtime = try state.runtime(for: context)
            let body = try await request.json(SettingValue.self, limit: state.limits.jsonBodyBytes)
            return JSONBody(Wire.Setting(try runtime.setSetting(try context.parameters.require("key"), to: body.value)))
        }
        group.delete("settings/:key") { _, context in
            let runtime = try state.runtime(for: context)
            return JSONBody(Wire.Setting(try runtime.unsetSetting(try context.parameters.require("key"))))
        }
        group.get("keys") { _, context in
            let runtime = try state.runtime(for: context)
            return JSONBody(try runtime.keys().map(Wire.Key.init))
        }
        group.put("keys/:name") { request, context in
            let runtime = try state.runtime(for: context)
            let body = try await request.json(KeyValue.self, limit: state.limits.jsonBodyBytes)
            return JSONBody(Wire.Key(try runtime.setKey(try context.parameters.require("name"), to: body.key)))
        }
        group.delete("keys/:name") { _, context in
            let runtime = try state.runtime(for: context)
            try runtime.removeKey(try context.parameters.require("name"))
            return Response(status: .noContent)
        }
    }
}
