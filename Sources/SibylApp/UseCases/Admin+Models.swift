import Assistant
public import Foundation
public import LocalEngines

extension SibylRuntime.Admin {
    /// The local engines and models: what is installed, what is missing.
    public func models() -> [ComponentStatus] {
        runtime.local.installer.status()
    }

    /// Re-hashes every installed file against its pin; returns the problems found.
    public func verifyModels(progress: @escaping @Sendable (InstallEvent) -> Void = { _ in }) throws -> [String] {
        try EngineInstaller(layout: runtime.local.layout, observer: progress).verifyInstalled()
    }

    /// Installs components (all when none is named), downloading pinned files or taking them from
    /// `source`; idempotent, resumable and safe to interrupt.
    public func installModels(_ components: [String] = [], from source: URL? = nil, progress: @escaping @Sendable (InstallEvent) -> Void = { _ in }) async throws -> InstallSummary {
        let installer = EngineInstaller(layout: runtime.local.layout, localSource: source, observer: progress)
        do {
            let summary = try await installer.install(components)
            runtime.events.publish(.models)
            if !summary.installed.isEmpty { await runtime.log(.info, .modelsInstall, "installed \(summary.installed.joined(separator: ", "))") }
            return summary
        } catch {
            await runtime.log(.error, .modelsInstall, ConversationEngine.describe(error))
            throw error
        }
    }

    /// Removes installed components; downloads stay cached unless `purge`.
    public func removeModels(_ components: [String], purge: Bool = false) async throws -> [String] {
        let removed = try runtime.local.installer.remove(components, purgeDownloads: purge)
        if !removed.isEmpty { await runtime.log(.info, .modelsRemove, "removed \(removed.joined(separator: ", "))") }
        return removed
    }
}

extension SibylRuntime.Admin {
    /// The local engines' installer: the pinned manifest, each component's state, download sizes.
    public var installer: EngineInstaller { runtime.local.installer }

    /// Whether chat goes to Sibyl's local engine (rather than a remote provider) with the settings as they are now.
    public var chatsLocally: Bool { runtime.providers.chatsLocally }

    /// Starts the local chat engine now (so that the first question does not wait for the model
    /// to load); false when chat goes to a remote provider.
    public func warmUpLocalChat() async throws -> Bool {
        guard runtime.providers.chatsLocally else { return false }
        _ = try await runtime.providers.chatEndpoint()
        return true
    }
}
