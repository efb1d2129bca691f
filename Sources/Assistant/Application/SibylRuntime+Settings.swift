import Foundation
import SibylConfig
import SibylCore

/// A setting as shells show it: its value, where the value came from, and what it means.
public struct SettingInfo: Sendable, Hashable {
    public var key: ConfigKey
    public var value: String?
    public var source: SettingSource
}

/// A stored or configured API key, never the key itself.
public struct KeyInfo: Sendable, Hashable {
    public var name: String
    /// `secrets file`, `your secrets file`, or the environment variable it comes from.
    public var source: String
    /// The first 3 and last 4 characters, for telling keys apart (`sk-…abcd`).
    public var masked: String
    /// Whose key it is; nil for a key set in the server's environment (changed only there).
    public var scope: KeyScope?
}

/// Whose key: an account's own (tried first for its requests), or the shared ones everyone on the
/// server uses, which only administrators set. For the local user the two are one store.
public enum KeyScope: String, Sendable, Hashable, Codable, CaseIterable {
    case own, shared
}

extension SibylRuntime {
    /// Every setting, in the order of `ConfigKey.all`.
    public func settingsList() -> [SettingInfo] {
        let settings = settings
        return ConfigKey.all.map { key in
            let resolved = settings.resolve(key.name)
            return SettingInfo(key: key, value: resolved.value, source: resolved.source)
        }
    }

    /// One setting.
    public func setting(_ name: String) throws -> SettingInfo {
        guard let key = ConfigKey.named(name) else { throw ConfigError.unknownKey(name) }
        let resolved = settings.resolve(name)
        return SettingInfo(key: key, value: resolved.value, source: resolved.source)
    }

    /// Sets a setting in the config file; it applies to what happens next, without a restart.
    @discardableResult
    public func setSetting(_ name: String, to value: String) async throws -> SettingInfo {
        try liveSettings.set(name, to: value)
        await log(.info, "config.set", "\(name) set")
        return try setting(name)
    }

    /// Removes a setting from the config file: its default (or the environment) applies again.
    @discardableResult
    public func unsetSetting(_ name: String) async throws -> SettingInfo {
        try liveSettings.unset(name)
        await log(.info, "config.unset", "\(name) unset")
        return try setting(name)
    }

    /// Whether this runtime is an account's on a shared server, with keys of its own.
    public var hasOwnKeys: Bool { dataPaths.home.standardizedFileURL != paths.home.standardizedFileURL }

    /// The store keys of a scope are kept in.
    private func keyStore(_ scope: KeyScope) -> SecretStore {
        scope == .own ? SecretStore(file: dataPaths.secretsFile) : liveSettings.secrets
    }

    /// The keys this runtime's requests may use, masked: its own (an account's), the shared stored
    /// ones, and those set in the server's environment.
    public func keys() throws -> [KeyInfo] {
        var keys: [KeyInfo] = []
        for scope in hasOwnKeys ? [KeyScope.own, .shared] : [.shared] {
            let store = keyStore(scope)
            let source = scope == .own ? "your secrets file" : "secrets file"
            keys += try store.names().map { KeyInfo(name: $0, source: source, masked: Redaction.mask(try store.secret(named: $0) ?? ""), scope: scope) }
        }
        for variable in ["OPENAI_API_KEY"] + CapabilityKind.allCases.map({ "SIBYL_\($0.rawValue.uppercased())_API_KEY" }) {
            if let value = liveSettings.environment[variable], !value.isEmpty {
                keys.append(KeyInfo(name: variable, source: "environment", masked: Redaction.mask(value), scope: nil))
            }
        }
        return keys
    }

    /// Stores an API key in an owner-only secrets file (the account's own, or the shared one); it
    /// is never shown again.
    @discardableResult
    public func setKey(_ name: String, to secret: String, scope: KeyScope = .own) async throws -> KeyInfo {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw AssistantError.emptyKey }
        let scope = hasOwnKeys ? scope : .shared
        try keyStore(scope).set(trimmed, named: name)
        await log(.info, "keys.set", "stored \(scope == .own ? "your " : "")key '\(name)'")
        return KeyInfo(name: name, source: scope == .own ? "your secrets file" : "secrets file", masked: Redaction.mask(trimmed), scope: scope)
    }

    /// Removes a stored key.
    public func removeKey(_ name: String, scope: KeyScope = .own) async throws {
        let scope = hasOwnKeys ? scope : .shared
        guard try keyStore(scope).remove(named: name) else { throw AssistantError.unknownKey(name) }
        await log(.info, "keys.remove", "removed \(scope == .own ? "your " : "")key '\(name)'")
    }
}
