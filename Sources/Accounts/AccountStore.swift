import Foundation
internal import GRDB

/// The accounts database (`accounts.sqlite` in the data directory, owner-only): accounts with
/// their password hashes, browser sessions and API tokens. Session and token secrets are kept
/// only as SHA-256 hashes: they are 256 random bits, so a hash cannot be reversed, and a copy of
/// the file signs no one in.
final class AccountStore: AccountStorage {
    private let database: any DatabaseWriter
    let location: String

    init(path: String) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            database = try DatabasePool(path: path, configuration: Self.configuration())
        } catch let error as DatabaseError {
            throw AccountError.cannotOpen(path: path, reason: error.message ?? error.description)
        } catch {
            throw AccountError.cannotOpen(path: path, reason: error.localizedDescription)
        }
        location = path
        try migrate()
    }

    init(inMemory: Void) throws {
        do {
            database = try DatabaseQueue(configuration: Self.configuration())
        } catch let error as DatabaseError {
            throw AccountError.cannotOpen(path: ":memory:", reason: error.message ?? error.description)
        }
        location = ":memory:"
        try migrate()
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "Sibyl accounts"
        configuration.foreignKeysEnabled = true
        // Another process (`sibyl users` beside `sibyl serve`) may hold the file for a moment.
        configuration.busyMode = .timeout(10)
        return configuration
    }

    private func migrate() throws {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            // Dates are Unix milliseconds; name_key is the lowercased name (unique regardless of case).
            try db.execute(sql: """
                CREATE TABLE account (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    name_key TEXT NOT NULL UNIQUE,
                    role TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    password_changed_at INTEGER NOT NULL
                );
                CREATE TABLE session (
                    id TEXT PRIMARY KEY NOT NULL,
                    secret_hash TEXT NOT NULL UNIQUE,
                    account_id TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    csrf_token TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    last_seen_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                );
                CREATE INDEX session_on_account_id ON session(account_id);
                CREATE TABLE api_token (
                    id TEXT PRIMARY KEY NOT NULL,
                    secret_hash TEXT NOT NULL UNIQUE,
                    account_id TEXT NOT NULL REFERENCES account(id) ON DELETE CASCADE,
                    label TEXT NOT NULL,
                    read_only INTEGER NOT NULL,
                    prefix TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    last_used_at INTEGER
                );
                CREATE INDEX api_token_on_account_id ON api_token(account_id);
                """)
        }
        do {
            if try database.read(migrator.hasBeenSuperseded) {
                throw AccountError.cannotOpen(path: location, reason: "it was written by a newer Sibyl")
            }
            try migrator.migrate(database)
        } catch let error as DatabaseError {
            throw AccountError.cannotOpen(path: location, reason: error.message ?? error.description)
        }
    }

    private func read<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try database.read(body) } catch let error as DatabaseError { throw AccountError.database(error.message ?? error.description) }
    }

    private func write<T>(_ body: (Database) throws -> T) throws -> T {
        do { return try database.write(body) } catch let error as DatabaseError { throw AccountError.database(error.message ?? error.description) }
    }

    // MARK: Accounts

    func insert(_ account: Account, passwordHash: String) throws {
        try write { db in
            if try Row.fetchOne(db, sql: "SELECT 1 FROM account WHERE name_key = ?", arguments: [account.name.lowercased()]) != nil {
                throw AccountError.nameTaken(account.name)
            }
            let now = Millis.of(account.createdAt)
            try db.execute(
                sql: "INSERT INTO account (id, name, name_key, role, password_hash, created_at, password_changed_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [account.id, account.name, account.name.lowercased(), account.role.rawValue, passwordHash, now, now]
            )
        }
    }

    func accounts() throws -> [Account] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM account ORDER BY name_key").map(Self.account)
        }
    }

    func accountCount() throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM account") ?? 0 }
    }

    /// The account and its password hash.
    func account(named name: String) throws -> (Account, String)? {
        try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM account WHERE name_key = ?", arguments: [name.lowercased()]).map { (Self.account($0), $0["password_hash"]) }
        }
    }

    func account(id: String) throws -> Account? {
        try read { db in try Row.fetchOne(db, sql: "SELECT * FROM account WHERE id = ?", arguments: [id]).map(Self.account) }
    }

    /// Removes an account with its sessions and tokens; the last administrator stays.
    func remove(accountID: String) throws {
        try write { db in
            try Self.refuseToLoseLastAdmin(db, accountID: accountID)
            try db.execute(sql: "DELETE FROM account WHERE id = ?", arguments: [accountID])
        }
    }

    func setRole(_ role: Account.Role, accountID: String) throws {
        try write { db in
            if role != .admin { try Self.refuseToLoseLastAdmin(db, accountID: accountID) }
            try db.execute(sql: "UPDATE account SET role = ? WHERE id = ?", arguments: [role.rawValue, accountID])
        }
    }

    /// Sets a new password hash; `endingSessions` signs the account out everywhere.
    func setPasswordHash(_ hash: String, accountID: String, at date: Date, endingSessions: Bool) throws {
        try write { db in
            try db.execute(sql: "UPDATE account SET password_hash = ?, password_changed_at = ? WHERE id = ?", arguments: [hash, Millis.of(date), accountID])
            if endingSessions { try db.execute(sql: "DELETE FROM session WHERE account_id = ?", arguments: [accountID]) }
        }
    }

    private static func refuseToLoseLastAdmin(_ db: Database, accountID: String) throws {
        let role = try String.fetchOne(db, sql: "SELECT role FROM account WHERE id = ?", arguments: [accountID])
        guard role == Account.Role.admin.rawValue else { return }
        let admins = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM account WHERE role = 'admin'") ?? 0
        if admins <= 1 { throw AccountError.lastAdministrator }
    }

    private static func account(_ row: Row) -> Account {
        Account(id: row["id"], name: row["name"], role: Account.Role(rawValue: row["role"]) ?? .user, createdAt: Millis.date(row["created_at"]))
    }

    // MARK: Sessions

    func insertSession(id: String, secretHash: String, accountID: String, csrfToken: String, at date: Date, expiresAt: Date) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO session (id, secret_hash, account_id, csrf_token, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [id, secretHash, accountID, csrfToken, Millis.of(date), Millis.of(date), Millis.of(expiresAt)]
            )
        }
    }

    /// The live session with this secret hash, refreshing when it was last seen; an expired or
    /// idle one is deleted and gives nil.
    func session(secretHash: String, at date: Date, idleLimit: TimeInterval) throws -> (id: String, csrfToken: String, account: Account)? {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT session.id AS session_id, session.csrf_token, session.expires_at, session.last_seen_at, account.*
                FROM session JOIN account ON account.id = session.account_id WHERE session.secret_hash = ?
                """, arguments: [secretHash]) else { return nil }
            let now = Millis.of(date)
            let lastSeen: Int64 = row["last_seen_at"]
            let sessionID: String = row["session_id"]
            if row["expires_at"] <= now || now - lastSeen > Int64(idleLimit * 1000) {
                try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [sessionID])
                return nil
            }
            // Written at most once a minute: a page's requests must not each write.
            if now - lastSeen > 60_000 {
                try db.execute(sql: "UPDATE session SET last_seen_at = ? WHERE id = ?", arguments: [now, sessionID])
            }
            return (sessionID, row["csrf_token"], Self.account(row))
        }
    }

    func deleteSession(id: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM session WHERE id = ?", arguments: [id]) }
    }

    func deleteSessions(accountID: String) throws {
        try write { db in try db.execute(sql: "DELETE FROM session WHERE account_id = ?", arguments: [accountID]) }
    }

    func sessionCount(accountID: String) throws -> Int {
        try read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM session WHERE account_id = ?", arguments: [accountID]) ?? 0 }
    }

    // MARK: API tokens

    func insertToken(_ token: APIToken, secretHash: String) throws {
        try write { db in
            try db.execute(
                sql: "INSERT INTO api_token (id, secret_hash, account_id, label, read_only, prefix, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [token.id, secretHash, token.accountID, token.label, token.readOnly, token.prefix, Millis.of(token.createdAt)]
            )
        }
    }

    func token(secretHash: String, usedAt date: Date) throws -> (APIToken, Account)? {
        try write { db in
            guard let row = try Row.fetchOne(db, sql: """
                SELECT api_token.id AS token_id, api_token.account_id, api_token.label, api_token.read_only, api_token.prefix,
                       api_token.created_at AS token_created_at, api_token.last_used_at, account.*
                FROM api_token JOIN account ON account.id = api_token.account_id WHERE api_token.secret_hash = ?
                """, arguments: [secretHash]) else { return nil }
            let now = Millis.of(date)
            let lastUsed: Int64? = row["last_used_at"]
            if lastUsed.map({ now - $0 > 60_000 }) ?? true {
                try db.execute(sql: "UPDATE api_token SET last_used_at = ? WHERE id = ?", arguments: [now, row["token_id"] as String])
            }
            var token = Self.token(row, idColumn: "token_id", createdColumn: "token_created_at")
            token.lastUsedAt = Millis.date(now)
            return (token, Self.account(row))
        }
    }

    func tokens(accountID: String) throws -> [APIToken] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM api_token WHERE account_id = ? ORDER BY created_at", arguments: [accountID])
                .map { Self.token($0, idColumn: "id", createdColumn: "created_at") }
        }
    }

    func tokenSecretHashes(accountID: String) throws -> [String: String] {
        try read { db in
            var hashes: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT id, secret_hash FROM api_token WHERE account_id = ?", arguments: [accountID]) {
                hashes[row["id"]] = row["secret_hash"]
            }
            return hashes
        }
    }

    /// Deletes one of an account's tokens; false when it has none with that id.
    func deleteToken(id: String, accountID: String) throws -> Bool {
        try write { db in
            try db.execute(sql: "DELETE FROM api_token WHERE id = ? AND account_id = ?", arguments: [id, accountID])
            return db.changesCount > 0
        }
    }

    private static func token(_ row: Row, idColumn: String, createdColumn: String) -> APIToken {
        APIToken(
            id: row[idColumn], accountID: row["account_id"], label: row["label"], readOnly: row["read_only"], prefix: row["prefix"],
            createdAt: Millis.date(row[createdColumn]), lastUsedAt: (row["last_used_at"] as Int64?).map(Millis.date)
        )
    }
}
