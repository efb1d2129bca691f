import Assistant
import Foundation
import LocalEngines

extension SibylRuntime {
    /// The local engines and models: what is installed, what is missing.
    public func modelStatus() -> [ComponentStatus] {
        local.installer.status()
    }

    /// Re-hashes every installed file against its pin; returns the problems found.
    public func verifyModels(progress: @escaping @Sendable (InstallEvent) -> Void = { _ in }) throws -> [String] {
        try EngineInstaller(layout: local.layout, observer: progress).verifyInstalled()
    }

    /// Installs components (all when none is named), downloading pinned files or taking them from
    /// `source`; idempotent, resumable and safe to interrupt.
    public func installModels(_ components: [String] = [], from source: URL? = nil, progress: @escaping @Sendable (InstallEvent) -> Void = { _ in }) async throws -> InstallSummary {
        let installer = EngineInstaller(layout: local.layout, localSource: source, observer: progress)
        do {
            let summary = try await installer.install(components)
            if !summary.installed.isEmpty { await log(.info, .modelsInstall, "installed \(summary.installed.joined(separator: ", "))") }
            return summary
        } catch {
            await log(.error, .modelsInstall, ConversationEngine.describe(error))
            throw error
        }
    }

    /// Removes installed components; downloads stay cached unless `purge`.
    public func removeModels(_ components: [String], purge: Bool = false) async throws -> [String] {
        let removed = try local.installer.remove(components, purgeDownloads: purge)
        if !removed.isEmpty { await log(.info, .modelsRemove, "removed \(removed.joined(separator: ", "))") }
        return removed
    }
}
