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
    /// `secrets file` or the environment variable it comes from.
    public var source: String
    /// The first 3 and last 4 characters, for telling keys apart (`sk-…abcd`).
    public var masked: String
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
    public func setSetting(_ name: String, to value: String) throws -> SettingInfo {
        try liveSettings.set(name, to: value)
        log(.info, "config.set", "\(name) set")
        return try setting(name)
    }

    /// Removes a setting from the config file: its default (or the environment) applies again.
    @discardableResult
    public func unsetSetting(_ name: String) throws -> SettingInfo {
        try liveSettings.unset(name)
        log(.info, "config.unset", "\(name) unset")
        return try setting(name)
    }

    /// The stored keys and the keys set in the environment, masked.
    public func keys() throws -> [KeyInfo] {
        let store = liveSettings.secrets
        var keys = try store.names().map { KeyInfo(name: $0, source: "secrets file", masked: Redaction.mask(try store.secret(named: $0) ?? "")) }
        for variable in ["OPENAI_API_KEY"] + CapabilityKind.allCases.map({ "SIBYL_\($0.rawValue.uppercased())_API_KEY" }) {
            if let value = liveSettings.environment[variable], !value.isEmpty {
                keys.append(KeyInfo(name: variable, source: "environment", masked: Redaction.mask(value)))
            }
        }
        return keys
    }

    /// Stores an API key in the owner-only secrets file; it is never shown again.
    @discardableResult
    public func setKey(_ name: String, to secret: String) throws -> KeyInfo {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw AssistantError.emptyKey }
        try liveSettings.secrets.set(trimmed, named: name)
        log(.info, "keys.set", "stored key '\(name)'")
        return KeyInfo(name: name, source: "secrets file", masked: Redaction.mask(trimmed))
    }

    /// Removes a stored key.
    public func removeKey(_ name: String) throws {
        guard try liveSettings.secrets.remove(named: name) else { throw AssistantError.unknownKey(name) }
        log(.info, "keys.remove", "removed key '\(name)'")
    }
}
