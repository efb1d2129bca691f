public import Foundation

/// Where the accounts of a shared Sibyl are kept, with their password hashes, browser sessions and
/// API tokens (secrets only as SHA-256 hashes). Two back ends: `accounts.sqlite` in the data
/// directory (`AccountStore`) and the PostgreSQL several `sibyl serve` instances share
/// (`PostgresAccountStore`), where a session opened through one instance is valid on every other.
///
/// Both keep the same promises: names are unique regardless of case; removing an account removes
/// its sessions and tokens; the last administrator can be neither removed nor demoted, however
/// many writers try at once.
public protocol AccountStorage: Sendable {
    /// Where the accounts are, for messages (a path, or the database's URL without password).
    var location: String { get }

    /// Stores a new account; `nameTaken` when the name is in use in any letter case.
    func insert(_ account: Account, passwordHash: String) async throws
    /// Every account, by name.
    func accounts() async throws -> [Account]
    func accountCount() async throws -> Int
    /// The account with this name (any letter case) and its password hash.
    func account(named name: String) async throws -> (Account, String)?
    func account(id: String) async throws -> Account?
    /// Removes an account with its sessions and tokens; `lastAdministrator` for the last one.
    func remove(accountID: String) async throws
    /// Changes a role; `lastAdministrator` when that would leave no administrator.
    func setRole(_ role: Account.Role, accountID: String) async throws
    /// Sets a new password hash; `endingSessions` signs the account out everywhere.
    func setPasswordHash(_ hash: String, accountID: String, at date: Date, endingSessions: Bool) async throws

    func insertSession(id: String, secretHash: String, accountID: String, csrfToken: String, at date: Date, expiresAt: Date) async throws
    /// The live session with this secret hash, its last use refreshed (at most once a minute); an
    /// expired or idle one is deleted and gives nil.
    func session(secretHash: String, at date: Date, idleLimit: TimeInterval) async throws -> (id: String, csrfToken: String, account: Account)?
    func deleteSession(id: String) async throws
    func deleteSessions(accountID: String) async throws
    func sessionCount(accountID: String) async throws -> Int

    func insertToken(_ token: APIToken, secretHash: String) async throws
    /// The token with this secret hash and its account, its last use recorded (at most once a minute).
    func token(secretHash: String, usedAt date: Date) async throws -> (APIToken, Account)?
    func tokens(accountID: String) async throws -> [APIToken]
    /// The SHA-256 hashes of an account's token secrets, by token id (for copying accounts).
    func tokenSecretHashes(accountID: String) async throws -> [String: String]
    /// Deletes one of an account's tokens; false when it has none with that id.
    func deleteToken(id: String, accountID: String) async throws -> Bool
}

/// Unix milliseconds, as every Sibyl database keeps dates.
public enum Millis {
    public static func of(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
    public static func date(_ millis: Int64) -> Date { Date(timeIntervalSince1970: Double(millis) / 1000) }
}
