import Crypto
public import Foundation

/// The accounts of a shared Sibyl: who may sign in, their browser sessions and API tokens.
///
/// Passwords are bcrypt hashes (`PasswordHasher`); sessions and tokens are 256-bit random
/// secrets of which only SHA-256 hashes are stored. Failed sign-ins are throttled per name and
/// per address (`LoginThrottling`) and all fail with the same message, in about the same time.
public final class Accounts: Sendable {
    /// How long sessions last.
    public struct SessionPolicy: Sendable, Hashable {
        /// A session ends this long after sign-in, however much it is used.
        public var lifetime: TimeInterval
        /// …or after this long unused.
        public var idleLimit: TimeInterval

        public init(lifetime: TimeInterval = 30 * 86_400, idleLimit: TimeInterval = 7 * 86_400) {
            self.lifetime = lifetime
            self.idleLimit = idleLimit
        }
    }

    let store: any AccountStorage
    /// The database's path (":memory:" for tests).
    public var location: String { store.location }
    public let hasher: PasswordHasher
    public let throttle: any LoginThrottling
    public let sessions: SessionPolicy
    private let now: @Sendable () -> Date

    /// Opens (creating it, owner-only) the accounts database at `path`.
    public convenience init(
        path: String, hasher: PasswordHasher = PasswordHasher(), throttle: any LoginThrottling = LoginThrottle(),
        sessions: SessionPolicy = SessionPolicy(), now: @escaping @Sendable () -> Date = Date.init
    ) throws {
        self.init(storage: try AccountStore(path: path), hasher: hasher, throttle: throttle, sessions: sessions, now: now)
    }

    /// Accounts kept in memory: for tests.
    public static func inMemory(
        hasher: PasswordHasher = PasswordHasher(cost: 4), throttle: any LoginThrottling = LoginThrottle(),
        sessions: SessionPolicy = SessionPolicy(), now: @escaping @Sendable () -> Date = Date.init
    ) throws -> Accounts {
        Accounts(storage: try AccountStore(inMemory: ()), hasher: hasher, throttle: throttle, sessions: sessions, now: now)
    }

    /// Accounts kept in `storage` (the shared database's, say).
    public init(
        storage store: any AccountStorage, hasher: PasswordHasher = PasswordHasher(), throttle: any LoginThrottling = LoginThrottle(),
        sessions: SessionPolicy = SessionPolicy(), now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.store = store
        self.hasher = hasher
        self.throttle = throttle
        self.sessions = sessions
        self.now = now
    }

    // MARK: Accounts

    /// Makes an account. (The first one is an administrator: `sibyl users add` insists, and the
    /// setup route makes only administrators.)
    @discardableResult
    public func add(name rawName: String, password: String, role: Account.Role) async throws -> Account {
        let name = rawName.trimmingCharacters(in: .whitespaces)
        if let why = Self.nameProblem(name) { throw AccountError.invalidName(why) }
        if let why = PasswordHasher.weakness(of: password, name: name) { throw AccountError.weakPassword(why) }
        if try await store.account(named: name) != nil { throw AccountError.nameTaken(name) }
        // Dates are kept to the millisecond: the account returned is the one read back later.
        let account = Account(id: UUID().uuidString.lowercased(), name: name, role: role, createdAt: Millis.date(Millis.of(now())))
        try await store.insert(account, passwordHash: try await hasher.hash(password))
        return account
    }

    public func list() async throws -> [Account] { try await store.accounts() }

    public var isEmpty: Bool { get async throws { try await store.accountCount() == 0 } }

    public func account(named name: String) async throws -> Account {
        guard let (account, _) = try await store.account(named: name) else { throw AccountError.noSuchAccount(name) }
        return account
    }

    public func account(id: String) async throws -> Account? { try await store.account(id: id) }

    /// Removes an account with its sessions and tokens (its data directory is the caller's to remove).
    public func remove(name: String) async throws -> Account {
        let account = try await account(named: name)
        try await store.remove(accountID: account.id)
        return account
    }

    public func setRole(_ role: Account.Role, name: String) async throws {
        try await store.setRole(role, accountID: try await account(named: name).id)
    }

    /// Sets a new password and signs the account out everywhere.
    public func resetPassword(name: String, to password: String) async throws {
        let account = try await account(named: name)
        if let why = PasswordHasher.weakness(of: password, name: account.name) { throw AccountError.weakPassword(why) }
        try await store.setPasswordHash(try await hasher.hash(password), accountID: account.id, at: now(), endingSessions: true)
    }

    static func nameProblem(_ name: String) -> String? {
        if name.isEmpty || name.count > 64 { return "it must have 1 to 64 characters." }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "._-"))
        guard name.unicodeScalars.allSatisfy({ $0.isASCII && allowed.contains($0) }) else {
            return "it may hold only ASCII letters, digits, dots, dashes and underscores."
        }
        return nil
    }

    // MARK: Signing in

    /// Checks a name and password (throttled) and opens a browser session.
    public func signIn(name: String, password: String, address: String) async throws -> IssuedSession {
        let account = try await checkPassword(name: name, password: password, address: address)
        let (secret, csrf, date) = (Self.randomSecret(), Self.randomSecret(), now())
        let expires = date.addingTimeInterval(sessions.lifetime)
        try await store.insertSession(id: UUID().uuidString.lowercased(), secretHash: Self.hash(secret), accountID: account.id, csrfToken: csrf, at: date, expiresAt: expires)
        return IssuedSession(account: account, secret: secret, csrfToken: csrf, expiresAt: expires)
    }

    /// Checks a name and password as a sign-in does (throttled, one message for every failure,
    /// an old hash upgraded), without opening a session: to confirm a password change.
    public func checkPassword(name: String, password: String, address: String) async throws -> Account {
        try await throttle.check(name: name, address: address)
        let found = try await store.account(named: name)
        guard try await hasher.verify(password, against: found?.1), let (account, stored) = found else {
            try await throttle.recordFailure(name: name, address: address)
            throw AccountError.signInFailed
        }
        try await throttle.recordSuccess(name: name)
        if hasher.needsRehash(stored) {
            try await store.setPasswordHash(try await hasher.hash(password), accountID: account.id, at: now(), endingSessions: false)
        }
        return account
    }

    /// Who a session cookie's value belongs to; nil for an unknown, expired or idle session.
    public func credential(sessionSecret secret: String) async throws -> Credential? {
        guard Self.looksLikeSecret(secret),
              let found = try await store.session(secretHash: Self.hash(secret), at: now(), idleLimit: sessions.idleLimit) else { return nil }
        return Credential(account: found.account, kind: .session(id: found.id, csrfToken: found.csrfToken))
    }

    /// Who an API token belongs to; nil for an unknown or revoked one.
    public func credential(bearer secret: String) async throws -> Credential? {
        guard secret.hasPrefix(Self.tokenPrefix), Self.looksLikeSecret(String(secret.dropFirst(Self.tokenPrefix.count))),
              let (token, account) = try await store.token(secretHash: Self.hash(secret), usedAt: now()) else { return nil }
        return Credential(account: account, kind: .token(id: token.id, readOnly: token.readOnly))
    }

    public func signOut(sessionID: String) async throws { try await store.deleteSession(id: sessionID) }

    /// Ends every browser session of the account (API tokens stay until revoked).
    public func signOutEverywhere(accountID: String) async throws { try await store.deleteSessions(accountID: accountID) }

    public func sessionCount(accountID: String) async throws -> Int { try await store.sessionCount(accountID: accountID) }

    // MARK: API tokens

    /// Tokens start with this, so that a leaked one is easy to recognise (and to scan for).
    public static let tokenPrefix = "sibyl_"

    public func issueToken(accountID: String, label: String, readOnly: Bool) async throws -> IssuedToken {
        let secret = Self.tokenPrefix + Self.randomSecret()
        let token = APIToken(
            id: String(UUID().uuidString.lowercased().prefix(8)), accountID: accountID, label: String(label.prefix(100)),
            readOnly: readOnly, prefix: String(secret.prefix(Self.tokenPrefix.count + 4)), createdAt: Millis.date(Millis.of(now())), lastUsedAt: nil
        )
        try await store.insertToken(token, secretHash: Self.hash(secret))
        return IssuedToken(token: token, secret: secret)
    }

    public func tokens(accountID: String) async throws -> [APIToken] { try await store.tokens(accountID: accountID) }

    public func revokeToken(id: String, accountID: String) async throws {
        guard try await store.deleteToken(id: id, accountID: accountID) else { throw AccountError.noSuchToken(id) }
    }

    // MARK: Secrets

    /// 32 random bytes, base64url without padding (43 characters).
    public static func randomSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func looksLikeSecret(_ text: String) -> Bool {
        text.utf8.count == 43 && text.utf8.allSatisfy { $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0) }
    }

    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
