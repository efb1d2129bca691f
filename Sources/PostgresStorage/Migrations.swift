import Foundation
import Logging
import PostgresNIO

/// One step of Sibyl's PostgreSQL schema. Steps only ever get added, each applied once, in order,
/// in a transaction of its own.
public struct Migration: Sendable {
    public var version: Int
    public var name: String
    public var statements: [String]

    public init(version: Int, name: String, statements: [String]) {
        self.version = version
        self.name = name
        self.statements = statements
    }
}

extension PostgresDatabase {
    /// Sibyl's schema, oldest step first.
    public static let schema: [Migration] = [
        Migration(version: 1, name: "pgvector", statements: [
            // Vectors (cosine HNSW) for the knowledge base; the extension ships with the server.
            "CREATE EXTENSION IF NOT EXISTS vector",
        ]),
        knowledgeSchema,
        conversationSchema,
        accountSchema,
        settingsSchema,
        loginThrottleSchema,
        Migration(version: 7, name: "persona sampling", statements: [
            // A persona's sampling beyond its temperature.
            "ALTER TABLE cv_persona ADD COLUMN max_tokens bigint, ADD COLUMN top_p double precision, ADD COLUMN presence_penalty double precision, ADD COLUMN frequency_penalty double precision",
        ]),
        Migration(version: 8, name: "memory", statements: [
            // The user's memory: facts proposed from conversations or written by the user, per owner.
            // A fact outlives its conversation and message (the links are cleared).
            """
            CREATE TABLE cv_memory_fact (
                id uuid PRIMARY KEY,
                owner text NOT NULL,
                text text NOT NULL,
                status text NOT NULL,
                conversation_id uuid REFERENCES cv_conversation (id) ON DELETE SET NULL,
                message_id uuid REFERENCES cv_message (id) ON DELETE SET NULL,
                created_at bigint NOT NULL,
                accepted_at bigint
            )
            """,
            "CREATE INDEX cv_memory_fact_owner ON cv_memory_fact (owner, created_at)",
            // Which conversations were read for facts, up to when (the owner is the conversation's).
            """
            CREATE TABLE cv_memory_read (
                conversation_id uuid PRIMARY KEY REFERENCES cv_conversation (id) ON DELETE CASCADE,
                read_through bigint NOT NULL
            )
            """,
        ]),
    ]

    /// The advisory lock every Sibyl takes while it migrates (any 64-bit number other programs are unlikely to pick).
    static let migrationLock: Int64 = 0x5359_4259_4C_4D47  // "SYBYLMG"

    /// Runs `body` on one connection while holding the advisory lock migrations take, so schema
    /// changes made on first use (a vector table for a new dimension) never race.
    func underMigrationLock<T>(_ body: (PostgresConnection, Logger) async throws -> T) async throws -> T {
        try await reachable {
            try await client.withConnection { connection in
                // Session-level: held across transactions, released however this ends.
                _ = try await connection.query("SELECT pg_advisory_lock(\(Self.migrationLock))", logger: logger)
                do {
                    let result = try await body(connection, logger)
                    _ = try await connection.query("SELECT pg_advisory_unlock(\(Self.migrationLock))", logger: logger)
                    return result
                } catch {
                    _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.migrationLock))", logger: logger)
                    throw error
                }
            }
        }
    }

    /// Applies the steps not applied yet, under the advisory lock; returns the versions it applied
    /// (empty when another instance had already done them). Fails, rolling the failed step back,
    /// when a step fails, and refuses a database a newer Sibyl has migrated.
    @discardableResult
    public func migrate(_ migrations: [Migration] = PostgresDatabase.schema) async throws -> [Int] {
        try await underMigrationLock { connection, _ in try await apply(migrations, on: connection) }
    }

    /// The versions applied so far, in order.
    public func appliedMigrations() async throws -> [Int] {
        try await reachable {
            try await client.withConnection { connection in
                try await Self.versions(on: connection, logger: logger)
            }
        }
    }

    private func apply(_ migrations: [Migration], on connection: PostgresConnection) async throws -> [Int] {
        try await Self.createLedger(on: connection, logger: logger)
        let done = Set(try await Self.versions(on: connection, logger: logger))
        let known = migrations.map(\.version).max() ?? 0
        if let newest = done.max(), newest > known { throw DatabaseError.newerSchema(found: newest, known: known) }
        var applied: [Int] = []
        for migration in migrations.sorted(by: { $0.version < $1.version }) where !done.contains(migration.version) {
            do {
                _ = try await connection.query("BEGIN", logger: logger)
                for statement in migration.statements {
                    _ = try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                let version = migration.version, name = migration.name
                _ = try await connection.query("INSERT INTO sibyl_migrations (version, name) VALUES (\(version), \(name))", logger: logger)
                _ = try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                let reason = (error as? PSQLError).map(Self.describe) ?? String(describing: error)
                throw DatabaseError.migrationFailed(version: migration.version, name: migration.name, reason: reason)
            }
            logger.info("database migrated to version \(migration.version) (\(migration.name))")
            applied.append(migration.version)
        }
        return applied
    }

    private static func createLedger(on connection: PostgresConnection, logger: Logger) async throws {
        _ = try await connection.query("""
            CREATE TABLE IF NOT EXISTS sibyl_migrations (
                version integer PRIMARY KEY,
                name text NOT NULL,
                applied_at timestamptz NOT NULL DEFAULT now()
            )
            """, logger: logger)
    }

    private static func versions(on connection: PostgresConnection, logger: Logger) async throws -> [Int] {
        for try await exists in try await connection.query("SELECT to_regclass('sibyl_migrations') IS NOT NULL", logger: logger).decode(Bool.self) where !exists {
            return []
        }
        var versions: [Int] = []
        for try await version in try await connection.query("SELECT version FROM sibyl_migrations ORDER BY version", logger: logger).decode(Int.self) {
            versions.append(version)
        }
        return versions
    }
}
