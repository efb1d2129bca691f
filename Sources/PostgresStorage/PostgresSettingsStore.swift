public import Foundation
import Logging
import PostgresNIO

extension PostgresDatabase {
    /// Settings and API keys every instance shares. Keys are stored sealed (AES-GCM) under a key the
    /// database never sees: each instance holds it in its own owner-only secrets store, and the
    /// database keeps only its fingerprint, so that an instance holding another key is told so.
    static let settingsSchema = Migration(version: 5, name: "settings", statements: [
        "CREATE TABLE st_setting (name text PRIMARY KEY, value text NOT NULL, changed_at bigint NOT NULL)",
        """
        CREATE TABLE st_key (
            owner text NOT NULL,
            name text NOT NULL,
            sealed bytea NOT NULL,
            changed_at bigint NOT NULL,
            PRIMARY KEY (owner, name)
        )
        """,
        "CREATE TABLE st_sealing (id int PRIMARY KEY CHECK (id = 1), fingerprint text NOT NULL, created_at bigint NOT NULL)",
    ])
}

/// Everything `PostgresSettingsStore` holds, read in one transaction.
public struct SharedSettingsSnapshot: Sendable, Equatable {
    /// Setting name to value.
    public var values: [String: String]
    /// Owner ("" for the keys everyone shares, `users/ID` for an account's own) to key name to sealed bytes.
    public var keys: [String: [String: Data]]
    /// The fingerprint of the key the keys are sealed with; nil until the first key is stored.
    public var fingerprint: String?

    public init(values: [String: String] = [:], keys: [String: [String: Data]] = [:], fingerprint: String? = nil) {
        self.values = values
        self.keys = keys
        self.fingerprint = fingerprint
    }
}

/// The settings and sealed API keys of every instance on the database. Each change notifies the
/// channel `sibyl_settings` when it commits, so instances that `watch` reload at once.
public final class PostgresSettingsStore: SharedTables, Sendable {
    public static let channel = "sibyl_settings"
    public let database: PostgresDatabase
    let ready: @Sendable () async throws -> Void

    public init(database: PostgresDatabase, ready: @escaping @Sendable () async throws -> Void = {}) {
        self.database = database
        self.ready = ready
    }

    /// Every setting and key, as one consistent picture.
    public func snapshot() async throws -> SharedSettingsSnapshot {
        try await writing { connection in
            var snapshot = SharedSettingsSnapshot()
            for try await (name, value) in try await connection.query("SELECT name, value FROM st_setting", logger: logger).decode((String, String).self) {
                snapshot.values[name] = value
            }
            for try await (owner, name, sealed) in try await connection.query("SELECT owner, name, sealed FROM st_key", logger: logger).decode((String, String, Data).self) {
                snapshot.keys[owner, default: [:]][name] = sealed
            }
            for try await fingerprint in try await connection.query("SELECT fingerprint FROM st_sealing WHERE id = 1", logger: logger).decode(String.self) {
                snapshot.fingerprint = fingerprint
            }
            return snapshot
        }
    }

    /// Sets a setting, or removes it (`nil`).
    public func setValue(_ value: String?, named name: String) async throws {
        try await writing { connection in
            if let value {
                try await connection.query("""
                    INSERT INTO st_setting (name, value, changed_at) VALUES (\(name), \(value), \(Self.now()))
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value, changed_at = excluded.changed_at
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM st_setting WHERE name = \(name)", logger: logger)
            }
            try await Self.notify(connection, logger: logger)
        }
    }

    /// Stores a sealed key, or removes it (`nil`); returns whether there was one before.
    @discardableResult
    public func setKey(_ sealed: Data?, named name: String, owner: String) async throws -> Bool {
        try await writing { connection in
            var existed = false
            for try await _ in try await connection.query("SELECT 1 FROM st_key WHERE owner = \(owner) AND name = \(name) FOR UPDATE", logger: logger) {
                existed = true
            }
            if let sealed {
                try await connection.query("""
                    INSERT INTO st_key (owner, name, sealed, changed_at) VALUES (\(owner), \(name), \(sealed), \(Self.now()))
                    ON CONFLICT (owner, name) DO UPDATE SET sealed = excluded.sealed, changed_at = excluded.changed_at
                    """, logger: logger)
            } else if existed {
                try await connection.query("DELETE FROM st_key WHERE owner = \(owner) AND name = \(name)", logger: logger)
            }
            try await Self.notify(connection, logger: logger)
            return existed
        }
    }

    /// Removes every key of an owner (its account was removed).
    public func removeKeys(owner: String) async throws {
        try await writing { connection in
            try await connection.query("DELETE FROM st_key WHERE owner = \(owner)", logger: logger)
            try await Self.notify(connection, logger: logger)
        }
    }

    /// Records the fingerprint of the sealing key unless one is recorded already; returns the one
    /// that holds (the first instance's, when two store their first key at once).
    public func claimFingerprint(_ fingerprint: String) async throws -> String {
        try await writing { connection in
            try await connection.query("""
                INSERT INTO st_sealing (id, fingerprint, created_at) VALUES (1, \(fingerprint), \(Self.now())) ON CONFLICT (id) DO NOTHING
                """, logger: logger)
            for try await recorded in try await connection.query("SELECT fingerprint FROM st_sealing WHERE id = 1", logger: logger).decode(String.self) {
                return recorded
            }
            return fingerprint
        }
    }

    /// Calls `changed` after every committed change (by any instance) until the task is cancelled,
    /// listening on a connection of its own; `changed` is also called once listening has begun,
    /// so that nothing committed in between is missed. Returns when cancelled; throws when the
    /// connection is lost (the caller decides when to listen again).
    public func watch(_ changed: @escaping @Sendable () async -> Void) async throws {
        try await ready()
        try await database.reachable {
            try await database.client.withConnection { connection in
                try await connection.listen(on: Self.channel) { notifications in
                    await changed()
                    for try await _ in notifications {
                        await changed()
                    }
                }
            }
        }
    }

    private static func notify(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT pg_notify(\(channel), '')", logger: logger)
    }

    private static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
