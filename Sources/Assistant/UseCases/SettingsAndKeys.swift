import Foundation
public import SibylConfig
import SibylCore

/// A setting as shells show it: its value, where the value came from, and what it means.
public struct SettingInfo: Sendable, Hashable {
    public var key: ConfigKey
    public var value: String?
    public var source: SettingSource

    package init(key: ConfigKey, value: String? = nil, source: SettingSource) {
        self.key = key
        self.value = value
        self.source = source
    }
}

/// A stored or configured API key, never the key itself.
public struct KeyInfo: Sendable, Hashable {
    public var name: String
    /// Where it is kept (`secrets file`, `database`, `your …` for an account's own), or `environment`.
    public var source: String
    /// The first 3 and last 4 characters, for telling keys apart (`sk-…abcd`).
    public var masked: String
    /// Whose key it is; nil for a key set in the server's environment (changed only there).
    public var scope: KeyScope?

    package init(name: String, source: String, masked: String, scope: KeyScope? = nil) {
        self.name = name
        self.source = source
        self.masked = masked
        self.scope = scope
    }
}

/// Whose key: an account's own (tried first for its requests), or the shared ones everyone on the
/// server uses, which only administrators set. For the local user the two are one store.
public enum KeyScope: String, Sendable, Hashable, Codable, CaseIterable {
    case own, shared
}
