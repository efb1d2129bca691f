import Foundation
import SibylCore

/// Problems with settings and secrets.
public enum ConfigError: Error, Equatable, LocalizedError {
    case unknownKey(String)
    case invalidValue(key: String, value: String, expected: String)
    case unreadableFile(path: String, reason: String)
    case invalidSecretName(String)

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
