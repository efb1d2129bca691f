public import Foundation
public import SibylCore

/// Problems with settings and secrets.
public enum ConfigError: Error, Equatable, LocalizedError {
    case unknownKey(String)
    case invalidValue(key: String, value: String, expected: String)
    case unreadableFile(path: String, reason: String)
    case invalidSecretName(String)
    /// A name Sibyl keeps for itself (the database key's entry).
    case reservedSecretName(String)
    /// Not the base64 of 32 bytes.
    case invalidDatabaseKey
    /// The shared database's keys are sealed, and this instance holds no database key.
    case databaseKeyMissing
    /// This instance's database key is not the one the shared database's keys are sealed with.
    case databaseKeyMismatch(held: String, recorded: String)
    /// A sealed key that does not open (altered, moved to another row, or another key).
    case sealedKeyUnreadable(name: String)

    public var errorDescription: String? {
        switch self {
        case .unknownKey(let key):
            let suggestions = ConfigKey.suggestions(for: key)
            let hint = suggestions.isEmpty ? "" : " Did you mean \(suggestions.joined(separator: ", "))?"
            return "Unknown setting '\(key)'.\(hint)"
        case .invalidValue(let key, let value, let expected):
            return "'\(value)' is not valid for \(key): expected \(expected)."
        case .unreadableFile(let path, let reason):
            return "Cannot read \(path): \(reason). Fix or delete the file and try again."
        case .invalidSecretName(let name):
            return "'\(name)' is not a valid key name: use letters, digits, '-' and '_'."
        case .reservedSecretName(let name):
            return "'\(name)' is the name Sibyl keeps its database key under; choose another name."
        case .invalidDatabaseKey:
            return "That is not a Sibyl database key (the base64 of 32 bytes, as `sibyl db key export` writes it)."
        case .databaseKeyMissing:
            return "The API keys in the shared database are sealed with a key this instance does not hold. On an instance that holds it, run `sibyl db key export FILE`; copy FILE here and run `sibyl db key import FILE` (or set SIBYL_DATABASE_KEY)."
        case .databaseKeyMismatch(let held, let recorded):
            return "This instance's database key (fingerprint \(held)) is not the one the shared database's API keys are sealed with (fingerprint \(recorded)). Import the right one with `sibyl db key import FILE` (made by `sibyl db key export FILE` on an instance that holds it)."
        case .sealedKeyUnreadable(let name):
            return "The stored key '\(name)' cannot be opened with this instance's database key (it was altered or sealed with another key). Store it again with `sibyl keys set \(name)`."
        }
    }
}

extension ConfigError: RemedyProviding {
    /// An unknown setting: look at the list of them.
    public var remedy: Remedy? {
        if case .unknownKey = self { return .listSettings }
        return nil
    }
}

extension ConfigKey {
    /// Up to three settings `name` may have meant: those a few slips of the keyboard away (closest
    /// first), then those that contain its last part (`lexical_weight` finds `docs.lexical_weight`).
    public static func suggestions(for name: String) -> [String] {
        let names = all.map(\.name)
        let slips = max(2, name.count / 6)
        let close = names.map { ($0, editDistance($0, name)) }.filter { $0.1 <= slips }.sorted { $0.1 < $1.1 }.map(\.0)
        let last = name.split(separator: ".").last.map(String.init) ?? name
        let containing = last.isEmpty ? [] : names.filter { $0.contains(last) && !close.contains($0) }
        return Array((close + containing).prefix(3))
    }

    /// Insertions, deletions and substitutions between two names (Levenshtein's distance).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
