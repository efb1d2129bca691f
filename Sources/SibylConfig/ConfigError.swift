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
            let suggestions = ConfigKey.all.map(\.name).filter { $0.contains(key.split(separator: ".").last.map(String.init) ?? key) }
            let hint = suggestions.isEmpty ? "" : " Did you mean \(suggestions.prefix(3).joined(separator: ", "))?"
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
