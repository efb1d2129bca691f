import Foundation
import Logging
import PostgresNIO
import TestDatabase
import Testing
@testable import PostgresStorage

@Suite("SIBYL_DATABASE_URL", .timeLimit(.minutes(10)))
struct DatabaseURLTests {
    @Test func aSocketFolderATCPServerAndTheirDefaults() throws {
        let socket = try DatabaseURL("postgres://postgres@/postgres?host=/tmp/sibyl-pg")
        #expect(socket.endpoint == .unixSocket(path: "/tmp/sibyl-pg/.s.PGSQL.5432"))
        #expect(socket.description == "postgres://postgres@/postgres?host=/tmp/sibyl-pg")
        let tcp = try DatabaseURL("postgresql://sibyl:s3cr%40t@db.example:6543/team?sslmode=require")
        #expect(tcp.endpoint == .tcp(host: "db.example", port: 6543))
        #expect(tcp.password == "s3cr@t")
        #expect(tcp.database == "team")
        #expect(tcp.tls == .require)
        #expect(!tcp.description.contains("s3cr"), "the password is never printed")
        let plain = try DatabaseURL("postgres://ada@db.example")
        #expect(plain.database == "ada")
        #expect(plain.tls == .prefer)
        #expect(plain.endpoint == .tcp(host: "db.example", port: 5432))
    }

    @Test func whatIsNotAUsablePostgreSQLURLIsSaidPlainly() {
        for bad in ["mysql://x@y/z", "postgres:///db", "postgres://a@b/c?sslmode=sometimes", "not a url"] {
            #expect(throws: DatabaseError.self, "\(bad)") { try DatabaseURL(bad) }
        }
    }
}

/// Against a real PostgreSQL with pgvector: `scripts/test.sh` starts one (scripts/postgres/start.sh)
/// and sets SIBYL_TEST_DATABASE_URL; each test gets a database of its own.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestDatabase.url != nil, "no PostgreSQL to test against (set SIBYL_TEST_DATABASE_URL; scripts/test.sh does)"))
struct PostgresDatabaseTests {
    @Test func theSchemaIsAppliedOnceAndPgvectorIsThere() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url)
            #expect(try await database.appliedMigrations() == [])
            #expect(try await database.migrate() == PostgresDatabase.schema.map(\.version))
            #expect(try await database.migrate() == [])
            #expect(try await database.appliedMigrations() == PostgresDatabase.schema.map(\.version))
            let info = try await database.serverInfo()
            #expect(info.vector != nil, "pgvector is installed")
            #expect(!info.server.isEmpty)
            await database.close()
        }
    }

    @Test func instancesStartingTogetherMigrateOnceBetweenThem() async throws {
        try await TestDatabase.with { url in
            // A slow first step widens the window in which a second migrator would collide.
            let steps = [
                Migration(version: 1, name: "slow", statements: ["SELECT pg_sleep(0.3)", "CREATE TABLE notes (id bigserial PRIMARY KEY, body text NOT NULL)"]),
                Migration(version: 2, name: "index", statements: ["CREATE INDEX notes_body ON notes (body)"]),
            ]
            let instances = try (0..<4).map { _ in try PostgresDatabase(url: url, maximumConnections: 2) }
            let applied = try await withThrowingTaskGroup(of: [Int].self) { group in
                for instance in instances { group.addTask { try await instance.migrate(steps) } }
                return try await group.reduce(into: [[Int]]()) { $0.append($1) }
            }
            #expect(applied.flatMap { $0 }.sorted() == [1, 2], "each step applied by exactly one instance: \(applied)")
            #expect(try await instances[0].appliedMigrations() == [1, 2])
            for instance in instances { await instance.close() }
        }
    }

    @Test func aFailedStepIsRolledBackWhole() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url)
            let steps = [
                Migration(version: 1, name: "table", statements: ["CREATE TABLE kept (id int)"]),
                Migration(version: 2, name: "broken", statements: ["CREATE TABLE half (id int)", "CREATE TABLE oops (id nosuchtype)"]),
            ]
            await #expect(throws: DatabaseError.self) { try await database.migrate(steps) }
            #expect(try await database.appliedMigrations() == [1])
            let rows = try await database.client.query("SELECT to_regclass('kept') IS NOT NULL, to_regclass('half') IS NOT NULL")
            for try await (kept, half) in rows.decode((Bool, Bool).self) {
                #expect(kept)
                #expect(!half, "nothing of the failed step is left")
            }
            // The lock was released: a fixed list migrates.
            #expect(try await database.migrate(Array(steps.prefix(1)) + [Migration(version: 2, name: "fixed", statements: ["CREATE TABLE half (id int)"])]) == [2])
            await database.close()
        }
    }

    @Test func aDatabaseANewerSibylMigratedIsRefused() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url)
            try await database.migrate()
            _ = try await database.client.query("INSERT INTO sibyl_migrations (version, name) VALUES (999, 'from the future')")
            await #expect(throws: DatabaseError.newerSchema(found: 999, known: PostgresDatabase.schema.map(\.version).max() ?? 0)) { try await database.migrate() }
            await database.close()
        }
    }

    @Test func aStatementTheServerRefusesIsNotCalledUnreachable() async throws {
        try await TestDatabase.with { url in
            let database = try PostgresDatabase(url: url)
            await #expect(throws: DatabaseError.refused("relation \"nowhere\" does not exist")) {
                try await database.reachable { _ = try await database.client.query("SELECT * FROM nowhere") }
            }
            await database.close()
        }
    }

    @Test func anUnreachableServerIsAPlainError() async throws {
        let database = try PostgresDatabase(url: try DatabaseURL("postgres://postgres@/postgres?host=/nonexistent-folder"))
        do {
            _ = try await database.serverInfo()
            Issue.record("no server there, yet it answered")
        } catch let error as DatabaseError {
            #expect(error.localizedDescription.contains("Cannot reach the database postgres://postgres@/postgres?host=/nonexistent-folder"))
        }
        await database.close()
    }
}
