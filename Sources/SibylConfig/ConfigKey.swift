import Foundation
import SibylCore

/// The capabilities that can each use their own provider.
public enum CapabilityKind: String, Sendable, CaseIterable, Codable {
    case chat, embeddings, stt, tts, images

    /// Whether Sibyl ships a local engine for it (image generation has none).
    public var hasLocalEngine: Bool { self != .images }

    /// A name for people.
    public var title: String {
        switch self {
        case .chat: "chat"
        case .embeddings: "embeddings"
        case .stt: "speech-to-text"
        case .tts: "text-to-speech"
        case .images: "images"
        }
    }
}

/// What shells know of a setting: its name, how a value is checked, its environment variables,
/// its default and meaning. Declared through `Setting` (see `Setting+Catalog.swift`).
public struct ConfigKey: Sendable, Hashable {
    public enum ValueType: String, Sendable {
        case string, url, integer, number, choice
        /// Languages scanned text is read in (`OCRLanguages`).
        case languages
        /// MCP servers answers may use (`ToolServerList`).
        case toolServers
    }

    /// Where a setting is kept when several instances share a database.
    public enum Scope: String, Sendable {
        /// In the database, the same for every instance (models, providers, limits).
        case shared
        /// In each machine's config file: where it listens, its certificate files, its
        /// Bluetooth adapter and glasses, its microphone's levels.
        case machine
    }

    /// The dotted name used in the config file and by `sibyl config`.
    public var name: String
    public var type: ValueType
    /// Environment variables that set it, strongest first.
    public var environment: [String]
    public var defaultValue: String?
    public var summary: String
    /// Allowed values for `.choice`.
    public var choices: [String]
    /// Other words for a choice (lowercased), each with the choice it stands for: a model's own
    /// name for `chat.local_model` and `embeddings.local_model`.
    public var aliases: [String: String]
    public var scope: Scope

    init(
        _ name: String, _ type: ValueType, env: [String], default defaultValue: String?, choices: [String],
        aliases: [String: String] = [:], scope: Scope, _ summary: String
    ) {
        self.name = name
        self.type = type
        self.environment = env
        self.defaultValue = defaultValue
        self.summary = summary
        self.choices = choices
        self.aliases = aliases
        self.scope = scope
    }

    /// Checks a value a user wants to set; returns it normalised, or says what is wrong.
    public func validate(_ raw: String) -> Result<String, ConfigError> {
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        switch type {
        case .string:
            return .success(value)
        case .url:
            // One API root, or several servers with the same models, used in turn with failover.
            let urls = value.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
            let valid = !urls.isEmpty && urls.allSatisfy { text in
                guard let url = URLComponents(string: text), let scheme = url.scheme else { return false }
                return ["http", "https"].contains(scheme.lowercased()) && url.host?.isEmpty == false
            }
            guard valid else {
                return .failure(.invalidValue(key: name, value: value, expected: "an http(s) URL such as http://127.0.0.1:8080/v1, or several separated by commas"))
            }
            return .success(urls.joined(separator: ", "))
        case .integer:
            guard let number = Int(settingText: value) else {
                return .failure(.invalidValue(key: name, value: value, expected: "a whole number"))
            }
            return .success(String(number))
        case .number:
            guard Double(settingText: value) != nil else {
                return .failure(.invalidValue(key: name, value: value, expected: "a number"))
            }
            return .success(value)
        case .languages:
            guard let languages = OCRLanguages(value) else {
                return .failure(.invalidValue(key: name, value: value, expected: "languages such as en, ko, id (or tesseract's codes: eng, kor, ind), separated by commas"))
            }
            return .success(languages.settingText)
        case .toolServers:
            guard let servers = ToolServerList(value) else {
                return .failure(.invalidValue(
                    key: name, value: value,
                    expected: "NAME=COMMAND or NAME=URL entries separated by ';', each NAME once (letters, digits, - and _), e.g. notes=python3 /srv/notes.py; web=http://127.0.0.1:8000/mcp"
                ))
            }
            return .success(servers.description)
        case .choice:
            if let choice = aliases[value.lowercased()] { return .success(choice) }
            guard choices.contains(value) else {
                return .failure(.invalidValue(key: name, value: value, expected: "one of \(choices.joined(separator: ", "))"))
            }
            return .success(value)
        }
    }
}
