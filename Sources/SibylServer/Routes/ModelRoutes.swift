import Assistant
import Foundation
import Hummingbird
import SibylApp

/// The local engines and models (status, install with progress), and the provider check.
struct ModelRoutes: RouteCollectionAdding {
    let state: ServerState

    struct InstallRequest: Codable, Sendable {
        /// chat, embeddings, tokenizers, stt, tts, ocr, emulator; none or `all` for all.
        var components: [String]?
    }

    /// The chat models to offer (`GET chat/models`).
    struct ChatModels: Codable, Sendable {
        struct Model: Codable, Sendable {
            var id: String
            var local: Bool
            /// The setting, and its value, that make it the default.
            var setting: String
            var value: String
        }

        /// What answers use when no model is picked.
        var current: String?
        var models: [Model]
        /// Why the provider's list could not be read.
        var problem: String?
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("chat/models") { _, context in
            let choices = try await state.runtime(for: context).conversations.chatModels()
            return JSONBody(ChatModels(current: choices.current, models: choices.models.map { .init(id: $0.id, local: $0.local, setting: $0.setting.key, value: $0.setting.value) }, problem: choices.problem))
        }
        group.get("models") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(runtime.admin.models().map(Wire.ModelComponent.init))
        }
        group.post("models/install") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(InstallRequest.self, limit: state.limits.jsonBodyBytes)
            let components = body.components ?? []
            // Unknown names are refused before anything streams.
            _ = try runtime.admin.installer.componentNames(components)
            return EventStream.response { writer in
                do {
                    let summary = try await runtime.admin.installModels(components) { event in
                        writer.send("progress", Wire.InstallProgress(event))
                    }
                    writer.send("done", Wire.InstallReport(summary))
                } catch {
                    writer.sendError(error)
                }
            }
        }
        group.get("providers/check") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(await runtime.admin.checkProviders().map(Wire.ProviderCheck.init))
        }
    }
}
