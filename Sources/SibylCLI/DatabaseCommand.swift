import ArgumentParser
import Foundation
import Knowledge
import PostgresStorage
import SibylConfig
import Storage

/// `sibyl db`: the PostgreSQL several `sibyl serve` instances are to share (SIBYL_DATABASE_URL).
struct DatabaseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Check and prepare the PostgreSQL database named by SIBYL_DATABASE_URL.",
        discussion: """
        SIBYL_DATABASE_URL is postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE (TLS when the server offers it; \
        ?sslmode=require insists, disable refuses) or postgres://USER@/DATABASE?host=/socket/folder. The server \
        needs the pgvector extension. Migrations take an advisory lock, so instances starting together apply \
        them once. With SIBYL_DATABASE_URL set, the knowledge base (documents, passages, their vectors) and the \
        conversations (messages, attachments, personas, the operations log) and the accounts (sessions, API \
        tokens) live there; settings and keys still live in SIBYL_HOME. `sibyl db migrate --to URL` copies the knowledge bases and conversations of \
        SIBYL_HOME into a database, `--to home` copies them back.
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
        static let configuration = CommandConfiguration(
            abstract: "Bring the database's schema up to date (safe to run while other instances start), or copy the knowledge base.",
            discussion: """
            --to postgres://… copies the knowledge base and the conversations of SIBYL_HOME (and of every account under \
            SIBYL_HOME/users) into that database; --to home copies those in SIBYL_DATABASE_URL (or --url) into SIBYL_HOME. \
            The source is only read; each document and each conversation is written whole in one transaction and checked \
            against its original (passages and vectors bit for bit; messages and attachments). Interrupted, run it again: \
            what was copied is skipped. Personas are copied unless the destination has one of the same name; the \
            operations log is not copied.
            """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var connection: Connection
        @Option(help: "Copy the knowledge base: into this PostgreSQL (postgres://…) from SIBYL_HOME, or `home` from the database into SIBYL_HOME.")
        var to: String?

        func run() async throws {
            global.bootstrap()
            try await reportingErrors {
                guard let to else {
                    return try await connection.with { database in
                        let applied = try await database.migrate()
                        Terminal.print(applied.isEmpty ? "The schema was already up to date." : "Applied: \(applied.map(String.init).joined(separator: ", ")).")
                    }
                }
                let paths = SibylPaths()
                if to.lowercased() == "home" {
                    try await connection.with { database in
                        try await database.migrate()
                        let lease = InstanceLease(database: database)
                        func home(of owner: String) -> SibylPaths {
                            SibylPaths(home: owner.hasPrefix("users/") ? paths.accountHome(id: String(owner.dropFirst("users/".count))) : paths.home)
                        }
                        var copies: [(String, any KnowledgeBase, any KnowledgeBase)] = []
                        for owner in try await PostgresKnowledgeBase.owners(in: database) {
                            copies.append((Self.name(of: owner), PostgresKnowledgeBase(database: database, owner: owner), try KnowledgeStore(path: home(of: owner).knowledgeDatabase.path)))
                        }
                        var conversations: [(String, any ConversationStorage, any ConversationStorage)] = []
                        for owner in try await PostgresConversationStore.owners(in: database) {
                            let destination = home(of: owner)
                            try destination.createHome()
                            conversations.append((
                                Self.name(of: owner), PostgresConversationStore(database: database, owner: owner, lease: lease),
                                QueuedConversationStore(try ConversationStore(path: destination.database.path, attachmentsDirectory: destination.attachments.path))
                            ))
                        }
                        try await Self.copy(copies, conversations: conversations, into: "SIBYL_HOME (\(paths.home.path))")
                    }
                } else {
                    let url = try DatabaseURL(to)
                    try await PostgresDatabase.with(url: url, maximumConnections: 4) { database in
                        try await database.migrate()
                        let lease = InstanceLease(database: database)
                        let accounts = (try? FileManager.default.contentsOfDirectory(atPath: paths.accountHomes.path)) ?? []
                        let owners = [("", paths)] + accounts.sorted().map { ("users/\($0)", SibylPaths(home: paths.accountHome(id: $0))) }
                        var copies: [(String, any KnowledgeBase, any KnowledgeBase)] = []
                        var conversations: [(String, any ConversationStorage, any ConversationStorage)] = []
                        for (owner, home) in owners {
                            if FileManager.default.fileExists(atPath: home.knowledgeDatabase.path) {
                                copies.append((Self.name(of: owner), try KnowledgeStore(path: home.knowledgeDatabase.path), PostgresKnowledgeBase(database: database, owner: owner)))
                            }
                            if FileManager.default.fileExists(atPath: home.database.path) {
                                conversations.append((
                                    Self.name(of: owner), QueuedConversationStore(try ConversationStore(path: home.database.path, attachmentsDirectory: home.attachments.path)),
                                    PostgresConversationStore(database: database, owner: owner, lease: lease)
                                ))
                            }
                        }
                        try await Self.copy(copies, conversations: conversations, into: url.description)
                        Terminal.print("To use it: SIBYL_DATABASE_URL=\(url.description)\(url.password == nil ? "" : " (with its password)") sibyl serve")
                    }
                }
            }
        }

        static func name(of owner: String) -> String {
            owner.isEmpty ? "local user" : owner
        }

        /// Copies each knowledge base and each owner's conversations, saying how far it is, and
        /// fails when a copy does not match.
        static func copy(
            _ copies: [(owner: String, source: any KnowledgeBase, destination: any KnowledgeBase)],
            conversations: [(owner: String, source: any ConversationStorage, destination: any ConversationStorage)],
            into place: String
        ) async throws {
            guard !copies.isEmpty || !conversations.isEmpty else {
                Terminal.print("There is nothing to copy.")
                return
            }
            var mismatches: [String] = []
            for (owner, source, destination) in copies {
                let report = try await KnowledgeCopy.copy(from: source, to: destination) { step in
                    Terminal.error("  \(owner) · \(step.collection) \(step.index)/\(step.of) \(URL(fileURLWithPath: step.path).lastPathComponent)")
                }
                Terminal.print("\(owner): \(report.collections) collections, \(report.copied) documents copied (\(report.passages) passages), "
                    + "\(report.alreadyThere) already there, \(report.failures) failure records; \(report.mismatches.isEmpty ? "every copy checked" : "\(report.mismatches.count) copies differ")")
                mismatches += report.mismatches.map { "\(owner): \($0)" }
            }
            for (owner, source, destination) in conversations {
                let report = try await ConversationCopy.copy(from: source, to: destination) { step in
                    Terminal.error("  \(owner) · conversation \(step.index)/\(step.of) \(step.title)")
                }
                Terminal.print("\(owner): \(report.copied) conversations copied (\(report.messages) messages), \(report.alreadyThere) already there"
                    + (report.changedThere > 0 ? ", \(report.changedThere) changed there since (kept as they are)" : "")
                    + ", \(report.personas) personas; \(report.mismatches.isEmpty ? "every copy checked" : "\(report.mismatches.count) copies differ")")
                mismatches += report.mismatches.map { "\(owner): conversation \($0)" }
            }
            guard mismatches.isEmpty else {
                throw CLIError("Some copies differ from their originals (the originals are untouched): \(mismatches.prefix(5).joined(separator: ", "))")
            }
            Terminal.print("Copied into \(place).")
        }
    }
}
