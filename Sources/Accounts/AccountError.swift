public import Foundation

/// Why an account operation failed, in words that say what to do. Sign-in failures are one
/// case with one message whether or not the account exists.
public enum AccountError: Error, LocalizedError, Equatable {
    /// The name or password is wrong (which of them is not said).
    case signInFailed
    /// Too many failed sign-ins for this name or from this address.
    case throttled(retryAfter: Int)
    case nameTaken(String)
    case invalidName(String)
    case weakPassword(String)
    case noSuchAccount(String)
    case lastAdministrator
    case noSuchToken(String)
    case cannotOpen(path: String, reason: String)
    case database(String)

    public var errorDescription: String? {
        switch self {
        case .signInFailed:
            "The name or password is wrong."
        case .throttled(let seconds):
            "Too many failed sign-ins; try again in \(seconds) s."
        case .nameTaken(let name):
            "There is already an account named \(name)."
        case .invalidName(let why):
            "That name cannot be used: \(why)"
        case .weakPassword(let why):
            "That password cannot be used: \(why)"
        case .noSuchAccount(let name):
            "There is no account named \(name)."
        case .lastAdministrator:
            "This is the last administrator; make another account an administrator first."
        case .noSuchToken(let id):
            "There is no API token \(id)."
        case .cannotOpen(let path, let reason):
            "The accounts database \(path) cannot be opened: \(reason)"
        case .database(let message):
            "The accounts database failed: \(message)"
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .noSuchAccount: "`sibyl users list` shows the accounts."
        case .weakPassword: "Use at least \(PasswordHasher.minimumLength) characters; a few unrelated words make a good one."
        case .invalidName: "Use 1 to 64 letters, digits, dots, dashes or underscores."
        default: nil
        }
    }
}
