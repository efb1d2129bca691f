public import Assistant
import Foundation
public import SibylConfig
import SibylCore

extension SibylRuntime.Admin {
    /// Every setting, in the order of `ConfigKey.all`.
    public func settings() -> [SettingInfo] {
        return ConfigKey.all.map { key in
            let resolved = runtime.settings.resolve(key)
            return SettingInfo(key: key, value: resolved.value, source: resolved.source)
        }
    }

    /// One setting.
    public func setting(_ name: String) throws -> SettingInfo {
        guard let key = ConfigKey.named(name) else { throw ConfigError.unknownKey(name) }
        let resolved = runtime.settings.resolve(name)
        return SettingInfo(key: key, value: resolved.value, source: resolved.source)
    }

    /// Sets a setting in the config file; it applies to what happens next, without a restart.
    @discardableResult
    public func set(_ name: String, to value: String) async throws -> SettingInfo {
        try await runtime.liveSettings.set(name, to: value)
        await runtime.log(.info, .configSet, "\(name) set")
        return try setting(name)
    }

    /// Sets a declared setting to a value of its type.
    @discardableResult
    public func set<Value>(_ setting: Setting<Value>, to value: Value) async throws -> SettingInfo {
        try await set(setting.name, to: value.settingText)
    }

    /// Removes a declared setting from the config file.
    @discardableResult
    public func unset<Value>(_ setting: Setting<Value>) async throws -> SettingInfo {
        try await unset(setting.name)
    }

    /// Removes a setting from the config file: its default (or the environment) applies again.
    @discardableResult
    public func unset(_ name: String) async throws -> SettingInfo {
        try await runtime.liveSettings.unset(name)
        await runtime.log(.info, .configUnset, "\(name) unset")
        return try setting(name)
    }

    /// Whether this runtime is an account's on a shared server, with keys of its own.
    public var hasOwnKeys: Bool { runtime.dataPaths.home.standardizedFileURL != runtime.paths.home.standardizedFileURL }

    /// Where the keys of a scope are kept: the shared database when there is one (sealed), else
    /// the owner-only secrets file of the account's or the server's data directory.
    private func keyPlace(_ scope: KeyScope) -> KeyPlace {
        if let shared = runtime.liveSettings.shared { return .database(shared, owner: scope == .own ? runtime.knowledgeOwner : "") }
        return .file(scope == .own ? SecretStore(file: runtime.dataPaths.secretsFile) : SecretStore(file: runtime.paths.secretsFile))
    }

    /// The keys this runtime's requests may use, masked: its own (an account's), the shared stored
    /// ones, and those set in the server's environment.
    public func keys() throws -> [KeyInfo] {
        var keys: [KeyInfo] = []
        for scope in hasOwnKeys ? [KeyScope.own, .shared] : [.shared] {
            let place = keyPlace(scope)
            let source = (scope == .own ? "your " : "") + place.description
            for name in try place.reader.names() where name != DatabaseKey.secretName {
                // A key this instance cannot open (it lacks the database key) is still listed.
                let masked = (try? place.reader.secret(named: name)).flatMap { $0 }.map(Redaction.mask) ?? "(sealed)"
                keys.append(KeyInfo(name: name, source: source, masked: masked, scope: scope))
            }
        }
        for variable in ["OPENAI_API_KEY"] + CapabilityKind.allCases.map({ "SIBYL_\($0.rawValue.uppercased())_API_KEY" }) {
            if let value = runtime.liveSettings.environment[variable], !value.isEmpty {
                keys.append(KeyInfo(name: variable, source: "environment", masked: Redaction.mask(value), scope: nil))
            }
        }
        return keys
    }

    /// Stores an API key (the account's own, or the shared one) in the shared database, sealed, or
    /// in an owner-only secrets file; it is never shown again.
    @discardableResult
    public func setKey(_ name: String, to secret: String, scope: KeyScope = .own) async throws -> KeyInfo {
        let trimmed = secret.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw AssistantError.emptyKey }
        guard name != DatabaseKey.secretName else { throw ConfigError.reservedSecretName(name) }
        let scope = hasOwnKeys ? scope : .shared
        let place = keyPlace(scope)
        try await place.set(trimmed, named: name)
        await runtime.log(.info, .keysSet, "stored \(scope == .own ? "your " : "")key '\(name)'")
        return KeyInfo(name: name, source: (scope == .own ? "your " : "") + place.description, masked: Redaction.mask(trimmed), scope: scope)
    }

    /// Removes a stored key.
    public func removeKey(_ name: String, scope: KeyScope = .own) async throws {
        let scope = hasOwnKeys ? scope : .shared
        guard name != DatabaseKey.secretName, try await keyPlace(scope).remove(named: name) else { throw AssistantError.unknownKey(name) }
        await runtime.log(.info, .keysRemove, "removed \(scope == .own ? "your " : "")key '\(name)'")
    }

    /// What the operator of an instance on a shared database should know at start: settings and
    /// keys of the data directory that the database now stands in for, and API keys this instance
    /// cannot open.
    public func sharedSettingsWarnings() -> [String] {
        guard let shared = runtime.liveSettings.shared else { return [] }
        var lines: [String] = []
        let inDatabase = shared.configuration.values
        let shadowed = runtime.settings.sharedFileValues.keys.filter { inDatabase[$0] == nil }.sorted()
        if !shadowed.isEmpty {
            lines.append("\(runtime.paths.configFile.path) sets \(shadowed.joined(separator: ", ")), which every instance now reads from the database instead; copy them there with `sibyl db migrate --to URL` or `sibyl config set`.")
        }
        let fileKeys = ((try? SecretStore(file: runtime.paths.secretsFile).names()) ?? []).filter { $0 != DatabaseKey.secretName }
        let storedKeys = Set((try? shared.keys(owner: "").names()) ?? [])
        let unshared = fileKeys.filter { !storedKeys.contains($0) }
        if !unshared.isEmpty {
            lines.append("\(runtime.paths.secretsFile.path) holds the keys \(unshared.joined(separator: ", ")), which the database does not; copy them there with `sibyl db migrate --to URL` or `sibyl keys set`.")
        }
        if let problem = shared.keyProblem() { lines.append(problem) }
        return lines
    }
}

/// Where stored keys are written: a secrets file, or one owner's part of the shared database.
enum KeyPlace {
    case file(SecretStore)
    case database(SharedSettings, owner: String)

    var description: String {
        switch self {
        case .file: "secrets file"
        case .database: "database"
        }
    }

    var reader: any SecretReading {
        switch self {
        case .file(let store): store
        case .database(let shared, let owner): shared.keys(owner: owner)
        }
    }

    func set(_ secret: String, named name: String) async throws {
        switch self {
        case .file(let store): try store.set(secret, named: name)
        case .database(let shared, let owner):
            try SecretStore.check(name)
            try await shared.setKey(secret, named: name, owner: owner)
        }
    }

    func remove(named name: String) async throws -> Bool {
        switch self {
        case .file(let store): try store.remove(named: name)
        case .database(let shared, let owner): try await shared.setKey(nil, named: name, owner: owner)
        }
    }
}
