import ArgumentParser
import Foundation
import PostgresStorage

/// `sibyl db`: the PostgreSQL several `sibyl serve` instances are to share (SIBYL_DATABASE_URL).
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Check and prepare the PostgreSQL database named by SIBYL_DATABASE_URL.",
        discussion: """
        SIBYL_DATABASE_URL is postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (TLS when the server offers it; \
        ?sslmode=require insists, disable refuses) or postgres://USER@/DATABASE?host=/socket/folder. The server \
        needs the pgvector extension. Migrations take an advisory lock, so instances starting together apply \
        them once. Sibyl's own data still lives in SIBYL_HOME: moving each store to PostgreSQL is under way.
        """,
        subcommands: [Status.self, Migrate.self],
        defaultSubcommand: Status.self
    )

    struct Connection: ParsableArguments {
        @Option(help: "The database URL (default: SIBYL_DATABASE_URL).")
        var url: String?

        /// Runs `body` with the database open, and closes it however `body` ends.
        func with(_ body: (PostgresDatabase) async throws -> Void) async throws {
            guard let text = url ?? ProcessInfo.processInfo.environment["SIBYL_DATABASE_URL"], !text.isEmpty else {
                throw CLIError("No database is named: set SIBYL_DATABASE_URL=postgres://USER@HOST/DATABASE, or pass --url.")
            }
            try await PostgresDatabase.with(url: try DatabaseURL(text), maximumConnections: 2, body)
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Say whether the database answers, its versions, and how far its schema is.")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var connection: Connection

        func run() async throws {
            global.bootstrap()
            try await connection.with { database in
                let info = try await database.serverInfo()
                let applied = try await database.appliedMigrations()
                let known = PostgresDatabase.schema.map(\.version)
                Terminal.print("database   \(database.url)")
                Terminal.print("server     PostgreSQL \(info.server)")
                Terminal.print("pgvector   \(info.vector ?? "not installed (CREATE EXTENSION vector, or sibyl db migrate)")")
                let pending = known.filter { !applied.contains($0) }
                Terminal.print("schema     version \(applied.max() ?? 0) of \(known.max() ?? 0)" + (pending.isEmpty ? "" : " (run sibyl db migrate)"))
            }
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Bring the database's schema up to date (safe to run while other instances start).")
        @OptionGroup var global: GlobalOptions
        @OptionGroup var connection: Connection

        func run() async throws {
            global.bootstrap()
            try await connection.with { database in
                let applied = try await database.migrate()
                Terminal.print(applied.isEmpty ? "The schema was already up to date." : "Applied: \(applied.map(String.init).joined(separator: ", ")).")
            }
        }
    }
}
