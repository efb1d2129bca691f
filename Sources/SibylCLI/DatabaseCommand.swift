import Accounts
import ArgumentParser
import Assistant
import Foundation
import Knowledge
import Logging
import PostgresStorage
import SibylApp
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
        conversations (messages, attachments, personas, the memory, the operations log), the accounts (sessions, API \
        tokens), the settings every instance shares and the API keys (sealed with a key each instance holds: \
        see `sibyl db key`) live there; each machine's own settings (serve.host, serve.port, its TLS files, \
        glasses and microphone) stay in its config file. `sibyl db migrate --to URL` copies everything of \
        SIBYL_HOME into a database, `--to home` copies it back.
        """,
        subcommands: [Status.self, Migrate.self, Key.self],
        defaultSubcommand: Status.self
    )

    struct Connection: ParsableArguments {
        @Option(help: "The database URL (default: SIBYL_DATABASE_URL).")
        var url: String?

        /// The database's URL: --url, else SIBYL_DATABASE_URL.
        func named() throws -> String {
            guard let text = url ?? ProcessInfo.processInfo.environment["SIBYL_DATABASE_URL"], !text.isEmpty else {
                throw CLIError("No database is named: set SIBYL_DATABASE_URL=postgres://USER@HOST/DATABASE, or pass --url.")
            }
            return text
        }

        /// Runs `body` with the database open, and closes it however `body` ends.
        func with(_ body: (PostgresDatabase) async throws -> Void) async throws {
            try await PostgresDatabase.with(url: try DatabaseURL(try named()), maximumConnections: 2, body)
        }

        /// Runs `body` with the database as an instance uses it (settings and keys loaded).
        func withShared(_ body: (SharedDatabase) async throws -> Void) async throws {
            try await DatabaseCommand.withShared(url: try named(), body)
        }
    }

    /// Runs `body` with the database at `url` opened as an instance opens it, and closes it after.
    static func withShared(url: String, _ body: (SharedDatabase) async throws -> Void) async throws {
        try await InstallationCopy.withShared(url: try DatabaseURL(url), paths: SibylPaths(), logger: Logger(label: "sibyl"), body)
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
                guard pending.isEmpty else { return }
                let settings = PostgresSettingsStore(database: database)
                let snapshot = try await settings.snapshot()
                let keyCount = snapshot.keys.values.reduce(0) { $0 + $1.count }
                Terminal.print("settings   \(snapshot.values.count) shared, \(keyCount) API keys (\(snapshot.keys[""]?.count ?? 0) for everyone)")
                let keyring = DatabaseKeyring(paths: SibylPaths(), environment: ProcessInfo.processInfo.environment)
                let held = try keyring.key()
                switch (snapshot.fingerprint, held) {
                case (nil, _): Terminal.print("keys       no database key yet (made when the first API key is stored)")
                case (let recorded?, let held?) where held.fingerprint == recorded:
                    Terminal.print("keys       sealed with key \(recorded); this instance holds it" + (keyring.fromEnvironment ? " (SIBYL_DATABASE_KEY)" : ""))
                case (let recorded?, let held?):
                    Terminal.print("keys       sealed with key \(recorded); this instance holds another (\(held.fingerprint)): sibyl db key import FILE")
                case (let recorded?, nil):
                    Terminal.print("keys       sealed with key \(recorded); this instance does not hold it: sibyl db key import FILE")
                }
            }
        }
    }

    struct Migrate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Bring the database's schema up to date (safe to run while other instances start), or copy an installation.",
            discussion: """
            --to postgres://… copies the knowledge base and the conversations of SIBYL_HOME (and of every account under \
            SIBYL_HOME/users), the accounts with their password hashes and API tokens, the shared settings of the config \
            file and the API keys of the secrets files into that database; --to home copies those in SIBYL_DATABASE_URL \
            (or --url) into SIBYL_HOME. The source is only read; each document and each conversation is written whole in \
            one transaction and checked against its original (passages and vectors bit for bit; messages and attachments). \
            Interrupted, run it again: what was copied is skipped. What the destination already has (a persona, a setting, \
            a key, an account's name) is kept and named. Sessions and the operations log are not copied. Keys copied into \
            the database are sealed with its database key (see `sibyl db key`).
            """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var connection: Connection
        @Option(help: "Copy an installation: into this PostgreSQL (postgres://…) from SIBYL_HOME, or `home` from the database into SIBYL_HOME.")
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
                let logger = Logger(label: "sibyl")
                if to.lowercased() == "home" {
                    let outcome = try await InstallationCopy.fromDatabase(try DatabaseURL(try connection.named()), into: paths, logger: logger, progress: Self.show)
                    try Self.conclude(outcome, place: "SIBYL_HOME (\(paths.home.path))")
                } else {
                    let url = try DatabaseURL(to)
                    let outcome = try await InstallationCopy.fromHome(paths, into: url, logger: logger, progress: Self.show)
                    try Self.conclude(outcome, place: url.description)
                    if let fingerprint = outcome.keysSealedWith {
                        Terminal.print("The API keys there are sealed with the database key \(fingerprint), which this machine holds: give it to each instance with `sibyl db key export FILE` here and `sibyl db key import FILE` there.")
                    }
                    Terminal.print("To use it: SIBYL_DATABASE_URL=\(url.description)\(url.password == nil ? "" : " (with its password)") sibyl serve")
                }
            }
        }

        /// One line per step of the copy.
        static func show(_ event: InstallationCopy.Event) {
            switch event {
            case .nothingToCopy:
                Terminal.print("There are no documents or conversations to copy.")
            case .document(let owner, let step):
                Terminal.error("  \(owner) · \(step.collection) \(step.index)/\(step.of) \(URL(fileURLWithPath: step.path).lastPathComponent)")
            case .knowledge(let owner, let report):
                Terminal.print("\(owner): \(report.collections) collections, \(report.copied) documents copied (\(report.passages) passages), "
                    + "\(report.alreadyThere) already there, \(report.failures) failure records; \(report.mismatches.isEmpty ? "every copy checked" : "\(report.mismatches.count) copies differ")")
            case .conversation(let owner, let step):
                Terminal.error("  \(owner) · conversation \(step.index)/\(step.of) \(step.title)")
            case .conversations(let owner, let report):
                Terminal.print("\(owner): \(report.copied) conversations copied (\(report.messages) messages), \(report.alreadyThere) already there"
                    + (report.changedThere > 0 ? ", \(report.changedThere) changed there since (kept as they are)" : "")
                    + ", \(report.personas) personas, \(report.memoryFacts) remembered facts; \(report.mismatches.isEmpty ? "every copy checked" : "\(report.mismatches.count) copies differ")")
            case .accounts(let report):
                Terminal.print("accounts: \(report.copied) copied with \(report.tokens) API tokens, \(report.alreadyThere) already there (sessions are not copied: browsers sign in again)")
            case .settings(let report):
                Terminal.print("settings: \(report.settings) settings and \(report.keys) API keys copied"
                    + (report.keptThere.isEmpty ? "" : "; kept as they are there: \(report.keptThere.joined(separator: ", "))"))
            }
        }

        /// Says how the copy ended; fails when a copy does not match its original.
        static func conclude(_ outcome: InstallationCopy.Outcome, place: String) throws {
            guard outcome.mismatches.isEmpty else {
                throw CLIError("Some copies differ from their originals (the originals are untouched): \(outcome.mismatches.prefix(5).joined(separator: ", "))")
            }
            if !outcome.namesTaken.isEmpty {
                Terminal.error(Terminal.yellow("note: not copied, their names belong to other accounts there: \(outcome.namesTaken.joined(separator: ", ")) (rename one with sibyl users, then run this again)", stderr: true))
            }
            Terminal.print("Copied into \(place).")
        }
    }
}
extension DatabaseCommand {
    /// `sibyl db key`: the key that seals the API keys kept in the shared database.
    struct Key: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give every instance the key that seals the API keys kept in the shared database.",
            discussion: """
            API keys stored with a shared database are sealed (AES-256-GCM) with a database key the database never \
            sees: the first instance that stores one makes it and keeps it in its owner-only secrets store; the \
            database records only its fingerprint. Every other instance needs the same key: run \
            `sibyl db key export FILE` on one that holds it, copy FILE to the others, run `sibyl db key import FILE` \
            there and delete FILE. Or give each instance SIBYL_DATABASE_KEY (FILE's one line) from a secrets manager. \
            `sibyl db status` says whether this instance holds it.
            """,
            subcommands: [Export.self, Import.self]
        )

        struct Export: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Write the database key to a new owner-only file (made first when the database has none).")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var connection: Connection
            @Argument(help: "The file to write; it must not exist.") var file: String

            func run() async throws {
                global.bootstrap()
                try await reportingErrors {
                    let path = (file as NSString).expandingTildeInPath
                    try await connection.withShared { shared in
                        let key = try await shared.settings.sealingKey(creating: true)
                        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
                        guard descriptor >= 0 else {
                            throw CLIError("Cannot create \(path): \(String(cString: strerror(errno))).", hint: errno == EEXIST ? "Name a file that does not exist yet." : nil)
                        }
                        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
                        try handle.write(contentsOf: Data((key.exported + "\n").utf8))
                        try handle.close()
                        Terminal.print("Wrote the database key (fingerprint \(key.fingerprint)) to \(path), readable by you only.")
                        Terminal.print("Copy it to each other instance, run `sibyl db key import FILE` there, then delete every copy.")
                    }
                }
            }
        }

        struct Import: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Keep the database key from a file (`-`: standard input) in this instance's secrets store.")
            @OptionGroup var global: GlobalOptions
            @OptionGroup var connection: Connection
            @Argument(help: "The file `sibyl db key export` wrote, or - to read it from standard input.") var file: String

            func run() async throws {
                global.bootstrap()
                try await reportingErrors {
                    let text: String
                    if file == "-" {
                        text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
                    } else {
                        let path = (file as NSString).expandingTildeInPath
                        guard let data = FileManager.default.contents(atPath: path) else { throw CLIError("Cannot read \(path).") }
                        text = String(decoding: data, as: UTF8.self)
                    }
                    let key = try DatabaseKey(exported: text)
                    if DatabaseKeyring(paths: SibylPaths(), environment: ProcessInfo.processInfo.environment).fromEnvironment {
                        throw CLIError("SIBYL_DATABASE_KEY is set, and it wins over a stored key.", hint: "Change SIBYL_DATABASE_KEY instead, or unset it first.")
                    }
                    try await connection.withShared { shared in
                        try await shared.settings.adopt(key)
                        let count = shared.settings.snapshot.keys.values.reduce(0) { $0 + $1.count }
                        Terminal.print("This instance now holds the database key (fingerprint \(key.fingerprint)): it opens the \(count) API keys stored there.")
                    }
                }
            }
        }
    }
}
