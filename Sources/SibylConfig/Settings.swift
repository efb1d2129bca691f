public import Foundation

/// Where a setting's value came from.
public enum SettingSource: Sendable, Hashable, CustomStringConvertible {
    case environment(String)
    case file
    /// The database several instances share (`SIBYL_DATABASE_URL`).
    case database
    case defaultValue
    case unset

    public var description: String {
        switch self {
        case .environment(let name): "env \(name)"
        case .file: "config file"
        case .database: "database"
        case .defaultValue: "default"
        case .unset: "unset"
        }
    }
}

/// A setting's effective value and its origin.
public struct ResolvedSetting: Sendable, Hashable {
    public var key: String
    public var value: String?
    public var source: SettingSource
}

/// Sibyl's settings: environment over the config file over defaults. With a shared database
/// (`shared`), the settings of `ConfigKey.Scope.shared` come from there instead of the file, so
/// that every instance on it works alike; the machine's own (`.machine`) stay in the file.
///
/// The config file is a flat JSON object of dotted keys (`"chat.model": "gpt-4o"`), so that
/// `sibyl config set` can write exactly what `sibyl config get` shows. A capability-specific
/// key (`chat.base_url`) is looked up before the general one (`base_url`), and within each
/// level the environment always wins over the file.
public struct Settings: Sendable {
    public let paths: SibylPaths
    public let environment: [String: String]
    /// The values written in the config file.
    public private(set) var fileValues: [String: String]
    /// The settings and keys of the shared database, when there is one.
    public var shared: SharedConfiguration?

    /// Loads the config file (a missing file means no values).
    public init(paths: SibylPaths, environment: [String: String] = ProcessInfo.processInfo.environment, shared: SharedConfiguration? = nil) throws {
        self.paths = paths
        self.environment = environment
        self.fileValues = try Self.readFile(paths.configFile)
        self.shared = shared
    }

    /// The effective value of a setting a person named (`sibyl config get NAME`, the settings API)
    /// and where it came from; code reads settings by their declaration (`settings[.servePort]`).
    public func resolve(_ name: String) -> ResolvedSetting {
        guard let key = ConfigKey.named(name) else { return ResolvedSetting(key: name, value: nil, source: .unset) }
        return resolve(key)
    }

    /// The effective value of a declared setting and where it came from.
    public func resolve(_ key: ConfigKey) -> ResolvedSetting {
        for variable in key.environment {
            if let value = environment[variable], !value.isEmpty {
                return ResolvedSetting(key: key.name, value: value, source: .environment(variable))
            }
        }
        if key.scope == .shared, let shared {
            if let value = shared.values[key.name] { return ResolvedSetting(key: key.name, value: value, source: .database) }
        } else if let value = fileValues[key.name] {
            return ResolvedSetting(key: key.name, value: value, source: .file)
        }
        if let value = key.defaultValue { return ResolvedSetting(key: key.name, value: value, source: .defaultValue) }
        return ResolvedSetting(key: key.name, value: nil, source: .unset)
    }

    /// A capability's own setting (`chat.base_url`) if set anywhere, else the general one (`base_url`).
    ///
    /// A capability's own setting from the environment beats the general one from the
    /// environment; the general one from the environment beats the capability's own from the file.
    public func resolve<Value>(_ specific: Setting<Value>, over general: Setting<Value>) -> ResolvedSetting {
        let specific = resolve(specific.key)
        let general = resolve(general.key)
        switch (specific.source, general.source) {
        case (.environment, _): return specific
        case (_, .environment): return general
        case (.file, _), (.database, _): return specific
        case (_, .file), (_, .database): return general
        case (.defaultValue, _): return specific
        default: return general
        }
    }

    /// The config file's values of shared settings, which a shared database overrides: what
    /// `sibyl db migrate --to` copies there.
    public var sharedFileValues: [String: String] {
        fileValues.filter { ConfigKey.named($0.key)?.scope == .shared }
    }

    // MARK: Writing

    /// Sets a value in the config file, after checking it.
    public mutating func set(_ name: String, to raw: String) throws {
        guard let key = ConfigKey.named(name) else { throw ConfigError.unknownKey(name) }
        let value = try key.validate(raw).get()
        fileValues[name] = value
        try save()
    }

    /// Removes a value from the config file, so the default (or environment) applies again.
    public mutating func unset(_ name: String) throws {
        guard ConfigKey.named(name) != nil else { throw ConfigError.unknownKey(name) }
        fileValues[name] = nil
        try save()
    }

    private func save() throws {
        try paths.createHome()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try FileWriter.writeAtomically(try encoder.encode(fileValues), to: paths.configFile, permissions: 0o600)
    }

    private static func readFile(_ url: URL) throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        do {
            let data = try Data(contentsOf: url)
            if data.isEmpty { return [:] }
            let object = try JSONSerialization.jsonObject(with: data)
            guard let dictionary = object as? [String: Any] else {
                throw ConfigError.unreadableFile(path: url.path, reason: "it is not a JSON object")
            }
            // Numbers and booleans written by hand are accepted and kept as text.
            return dictionary.compactMapValues { value in
                switch value {
                case let text as String: text
                case let number as NSNumber: number.stringValue
                default: nil
                }
            }
        } catch let error as ConfigError {
            throw error
        } catch {
            throw ConfigError.unreadableFile(path: url.path, reason: error.localizedDescription)
        }
    }
}
