public import Accounts
public import Foundation
import Logging
import PostgresNIO

extension PostgresDatabase {
    /// The accounts of a shared Sibyl, as `accounts.sqlite` keeps them: names unique regardless of
    /// case, sessions and API tokens by the SHA-256 of their secrets, dates in Unix milliseconds.
    static let accountSchema = Migration(version: 4, name: "accounts", statements: [
        """
        CREATE TABLE ac_account (
            id text PRIMARY KEY,
            name text NOT NULL,
            name_key text NOT NULL UNIQUE,
            role text NOT NULL,
            password_hash text NOT NULL,
            created_at bigint NOT NULL,
            password_changed_at bigint NOT NULL
        )
        """,
        """
        CREATE TABLE ac_session (
            id text PRIMARY KEY,
            secret_hash text NOT NULL UNIQUE,
            account_id text NOT NULL REFERENCES ac_account (id) ON DELETE CASCADE,
            csrf_token text NOT NULL,
            created_at bigint NOT NULL,
            last_seen_at bigint NOT NULL,
            expires_at bigint NOT NULL
        )
        """,
        "CREATE INDEX ac_session_account ON ac_session (account_id)",
        """
        CREATE TABLE ac_api_token (
            id text PRIMARY KEY,
            secret_hash text NOT NULL UNIQUE,
            account_id text NOT NULL REFERENCES ac_account (id) ON DELETE CASCADE,
            label text NOT NULL,
            read_only boolean NOT NULL,
            prefix text NOT NULL,
            created_at bigint NOT NULL,
            last_used_at bigint
        )
        """,
        "CREATE INDEX ac_api_token_account ON ac_api_token (account_id)",
    ])
}

/// The accounts in PostgreSQL, shared by every `sibyl serve` on the database: an account made,
/// a session opened or a token issued through one instance is known to all at once.
public final class PostgresAccountStore: AccountStorage, SharedTables {
    public let database: PostgresDatabase
    /// Runs before each call: brings the schema up to date, once.
    let ready: @Sendable () async throws -> Void

    public init(database: PostgresDatabase, ready: @escaping @Sendable () async throws -> Void = {}) {
        self.database = database
        self.ready = ready
    }

    public var location: String { database.url.description }

    static let accountColumns = "a.id, a.name, a.role, a.created_at"

    static func account(_ cells: PostgresRandomAccessRow, at start: Int = 0) throws -> Account {
        Account(
            id: try cells[start].decode(String.self), name: try cells[start + 1].decode(String.self),
            role: Account.Role(rawValue: try cells[start + 2].decode(String.self)) ?? .user,
            createdAt: Millis.date(try cells[start + 3].decode(Int64.self))
        )
    }

    // MARK: Accounts

    public func insert(_ account: Account, passwordHash: String) async throws {
        let now = Millis.of(account.createdAt)
        try await writing { connection in
            let rows = try await connection.query("""
                INSERT INTO ac_account (id, name, name_key, role, password_hash, created_at, password_changed_at)
                VALUES (\(account.id), \(account.name), \(account.name.lowercased()), \(account.role.rawValue), \(passwordHash), \(now), \(now))
                ON CONFLICT (name_key) DO NOTHING RETURNING 1
                """, logger: logger)
            guard try await rows.decode(Int.self).first(where: { _ in true }) != nil else { throw AccountError.nameTaken(account.name) }
        }
    }

    public func accounts() async throws -> [Account] {
        try await calling {
            var found: [Account] = []
            for try await row in try await database.client.query("SELECT \(unescaped: Self.accountColumns) FROM ac_account a ORDER BY a.name_key", logger: logger) {
                found.append(try Self.account(row.makeRandomAccess()))
            }
            return found
        }
    }

    public func accountCount() async throws -> Int {
        try await calling {
            for try await count in try await database.client.query("SELECT count(*) FROM ac_account", logger: logger).decode(Int64.self) { return Int(count) }
            return 0
        }
    }

    public func account(named name: String) async throws -> (Account, String)? {
        try await calling {
            let rows = try await database.client.query(
                "SELECT \(unescaped: Self.accountColumns), a.password_hash FROM ac_account a WHERE a.name_key = \(name.lowercased())", logger: logger
            )
            for try await row in rows {
                let cells = row.makeRandomAccess()
                return (try Self.account(cells), try cells[4].decode(String.self))
            }
            return nil
        }
    }

    public func account(id: String) async throws -> Account? {
        try await calling {
            for try await row in try await database.client.query("SELECT \(unescaped: Self.accountColumns) FROM ac_account a WHERE a.id = \(id)", logger: logger) {
                return try Self.account(row.makeRandomAccess())
            }
            return nil
        }
    }

    public func remove(accountID: String) async throws {
        try await writing { connection in
            try await Self.refuseToLoseLastAdmin(accountID: accountID, on: connection, logger: logger)
            try await connection.query("DELETE FROM ac_account WHERE id = \(accountID)", logger: logger)
        }
    }

    public func setRole(_ role: Account.Role, accountID: String) async throws {
        try await writing { connection in
            if role != .admin { try await Self.refuseToLoseLastAdmin(accountID: accountID, on: connection, logger: logger) }
            try await connection.query("UPDATE ac_account SET role = \(role.rawValue) WHERE id = \(accountID)", logger: logger)
        }
    }

    /// Throws `lastAdministrator` when `accountID` is the only administrator. The administrators'
    /// rows stay locked until the transaction ends, so two instances demoting the last two at once
    /// cannot both succeed.
    private static func refuseToLoseLastAdmin(accountID: String, on connection: PostgresConnection, logger: Logger) async throws {
        var admins: [String] = []
        for try await id in try await connection.query("SELECT id FROM ac_account WHERE role = 'admin' ORDER BY id FOR UPDATE", logger: logger).decode(String.self) {
            admins.append(id)
        }
        if admins == [accountID] { throw AccountError.lastAdministrator }
    }

    public func setPasswordHash(_ hash: String, accountID: String, at date: Date, endingSessions: Bool) async throws {
        try await writing { connection in
            try await connection.query("UPDATE ac_account SET password_hash = \(hash), password_changed_at = \(Millis.of(date)) WHERE id = \(accountID)", logger: logger)
            if endingSessions { try await connection.query("DELETE FROM ac_session WHERE account_id = \(accountID)", logger: logger) }
        }
    }

    // MARK: Sessions

    public func insertSession(id: String, secretHash: String, accountID: String, csrfToken: String, at date: Date, expiresAt: Date) async throws {
        try await calling {
            try await database.client.query("""
                INSERT INTO ac_session (id, secret_hash, account_id, csrf_token, created_at, last_seen_at, expires_at)
                VALUES (\(id), \(secretHash), \(accountID), \(csrfToken), \(Millis.of(date)), \(Millis.of(date)), \(Millis.of(expiresAt)))
                """, logger: logger)
        }
    }

    public func session(secretHash: String, at date: Date, idleLimit: TimeInterval) async throws -> (id: String, csrfToken: String, account: Account)? {
        let now = Millis.of(date)
        let found: (id: String, csrf: String, expires: Int64, lastSeen: Int64, account: Account)? = try await calling {
            let rows = try await database.client.query("""
                SELECT s.id, s.csrf_token, s.expires_at, s.last_seen_at, \(unescaped: Self.accountColumns)
                FROM ac_session s JOIN ac_account a ON a.id = s.account_id WHERE s.secret_hash = \(secretHash)
                """, logger: logger)
            for try await row in rows {
                let cells = row.makeRandomAccess()
                return (try cells[0].decode(String.self), try cells[1].decode(String.self), try cells[2].decode(Int64.self), try cells[3].decode(Int64.self), try Self.account(cells, at: 4))
            }
            return nil
        }
        guard let found else { return nil }
        if found.expires <= now || now - found.lastSeen > Int64(idleLimit * 1000) {
            try await deleteSession(id: found.id)
            return nil
        }
        // Written at most once a minute: a page's requests must not each write.
        if now - found.lastSeen > 60_000 {
            try await calling { try await database.client.query("UPDATE ac_session SET last_seen_at = \(now) WHERE id = \(found.id)", logger: logger) }
        }
        return (found.id, found.csrf, found.account)
    }

    public func deleteSession(id: String) async throws {
        try await calling { try await database.client.query("DELETE FROM ac_session WHERE id = \(id)", logger: logger) }
    }

    public func deleteSessions(accountID: String) async throws {
        try await calling { try await database.client.query("DELETE FROM ac_session WHERE account_id = \(accountID)", logger: logger) }
    }

    public func sessionCount(accountID: String) async throws -> Int {
        try await calling {
            for try await count in try await database.client.query("SELECT count(*) FROM ac_session WHERE account_id = \(accountID)", logger: logger).decode(Int64.self) {
                return Int(count)
            }
            return 0
        }
    }

    // MARK: API tokens

    public func insertToken(_ token: APIToken, secretHash: String) async throws {
        try await calling {
            try await database.client.query("""
                INSERT INTO ac_api_token (id, secret_hash, account_id, label, read_only, prefix, created_at)
                VALUES (\(token.id), \(secretHash), \(token.accountID), \(token.label), \(token.readOnly), \(token.prefix), \(Millis.of(token.createdAt)))
                """, logger: logger)
        }
    }

    static let tokenColumns = "t.id, t.account_id, t.label, t.read_only, t.prefix, t.created_at, t.last_used_at"

    static func token(_ cells: PostgresRandomAccessRow) throws -> APIToken {
        APIToken(
            id: try cells[0].decode(String.self), accountID: try cells[1].decode(String.self), label: try cells[2].decode(String.self),
            readOnly: try cells[3].decode(Bool.self), prefix: try cells[4].decode(String.self),
            createdAt: Millis.date(try cells[5].decode(Int64.self)), lastUsedAt: try cells[6].decode(Int64?.self).map(Millis.date)
        )
    }

    public func token(secretHash: String, usedAt date: Date) async throws -> (APIToken, Account)? {
        let now = Millis.of(date)
        let found: (APIToken, Account)? = try await calling {
            let rows = try await database.client.query("""
                SELECT \(unescaped: Self.tokenColumns), \(unescaped: Self.accountColumns)
                FROM ac_api_token t JOIN ac_account a ON a.id = t.account_id WHERE t.secret_hash = \(secretHash)
                """, logger: logger)
            for try await row in rows {
                let cells = row.makeRandomAccess()
                return (try Self.token(cells), try Self.account(cells, at: 7))
            }
            return nil
        }
        guard let found else { return nil }
        var token = found.0
        if token.lastUsedAt.map({ now - Millis.of($0) > 60_000 }) ?? true {
            try await calling { try await database.client.query("UPDATE ac_api_token SET last_used_at = \(now) WHERE id = \(token.id)", logger: logger) }
        }
        token.lastUsedAt = Millis.date(now)
        return (token, found.1)
    }

    public func tokens(accountID: String) async throws -> [APIToken] {
        try await calling {
            var found: [APIToken] = []
            for try await row in try await database.client.query(
                "SELECT \(unescaped: Self.tokenColumns) FROM ac_api_token t WHERE t.account_id = \(accountID) ORDER BY t.created_at", logger: logger
            ) {
                found.append(try Self.token(row.makeRandomAccess()))
            }
            return found
        }
    }

    public func tokenSecretHashes(accountID: String) async throws -> [String: String] {
        try await calling {
            var hashes: [String: String] = [:]
            for try await (id, hash) in try await database.client.query(
                "SELECT id, secret_hash FROM ac_api_token WHERE account_id = \(accountID)", logger: logger
            ).decode((String, String).self) {
                hashes[id] = hash
            }
            return hashes
        }
    }

    public func deleteToken(id: String, accountID: String) async throws -> Bool {
        try await calling {
            let rows = try await database.client.query("DELETE FROM ac_api_token WHERE id = \(id) AND account_id = \(accountID) RETURNING 1", logger: logger)
            return try await rows.decode(Int.self).first(where: { _ in true }) != nil
        }
    }
}
