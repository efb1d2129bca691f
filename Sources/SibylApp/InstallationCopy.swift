public import Accounts
import Foundation
public import Knowledge
public import Logging
public import PostgresStorage
public import SibylConfig
public import Storage

/// Copies a whole installation between a data directory (`SIBYL_HOME` and every account's
/// directory under it) and a PostgreSQL that several instances share: the knowledge bases, the
/// conversations with their personas, the accounts with their password hashes and API tokens, the
/// shared settings and the API keys. The source is only read; each document and each conversation
/// is written whole and checked against its original; what the destination already has is kept
/// (and named); an interrupted copy, run again, skips what was copied. Sessions and the operations
/// log are not copied.
public enum InstallationCopy {
    /// What happens, as it happens.
    public enum Event: Sendable {
        /// A document about to be copied.
        case document(owner: String, KnowledgeCopy.Step)
        /// One owner's knowledge base is copied.
        case knowledge(owner: String, KnowledgeCopy.Report)
        /// A conversation just copied.
        case conversation(owner: String, ConversationCopy.Step)
        /// One owner's conversations are copied.
        case conversations(owner: String, ConversationCopy.Report)
        case accounts(AccountCopy.Report)
        case settings(SettingsCopy.Report)
        /// The source holds no documents and no conversations.
        case nothingToCopy
    }

    /// How a copy ended.
    public struct Outcome: Sendable {
        /// Copies that differ from their originals, as `owner: what` (the originals are untouched).
        public var mismatches: [String] = []
        /// Accounts not copied because their names belong to other accounts there.
        public var namesTaken: [String] = []
        /// The fingerprint of the database key the copied API keys are sealed with, when keys went into a database.
        public var keysSealedWith: String?
    }

    /// The owner as people read it.
    public static func name(of owner: String) -> String {
        owner.isEmpty ? "local user" : owner
    }

    /// Copies the data directory `paths` names into the database at `url` (migrated first).
    public static func fromHome(_ paths: SibylPaths, into url: DatabaseURL, logger: Logger, progress: @escaping @Sendable (Event) -> Void) async throws -> Outcome {
        try await PostgresDatabase.with(url: url, maximumConnections: 4) { database in
            try await database.migrate()
            let lease = InstanceLease(database: database)
            var knowledge: [Pair<any KnowledgeBase>] = []
            var conversations: [Pair<any ConversationStorage>] = []
            for (owner, home) in paths.dataDirectories() {
                if FileManager.default.fileExists(atPath: home.knowledgeDatabase.path) {
                    knowledge.append(Pair(owner: owner, source: try KnowledgeStore(path: home.knowledgeDatabase.path), destination: PostgresKnowledgeBase(database: database, owner: owner)))
                }
                if FileManager.default.fileExists(atPath: home.database.path) {
                    conversations.append(Pair(
                        owner: owner, source: QueuedConversationStore(try ConversationStore(path: home.database.path, attachmentsDirectory: home.attachments.path)),
                        destination: PostgresConversationStore(database: database, owner: owner, lease: lease)
                    ))
                }
            }
            var outcome = try await copy(knowledge, conversations, progress: progress)
            if FileManager.default.fileExists(atPath: paths.accountsDatabase.path) {
                let report = try await AccountCopy.copy(from: Accounts(path: paths.accountsDatabase.path), to: Accounts(storage: PostgresAccountStore(database: database)))
                progress(.accounts(report))
                outcome.namesTaken = report.nameTaken
            }
            try await withShared(url: url, paths: paths, logger: logger) { shared in
                let report = try await SettingsCopy.copy(from: paths, into: shared.settings)
                progress(.settings(report))
                if report.keys > 0 { outcome.keysSealedWith = shared.settings.recordedFingerprint }
            }
            return outcome
        }
    }

    /// Copies the database at `url` into the data directory `paths` names.
    public static func fromDatabase(_ url: DatabaseURL, into paths: SibylPaths, logger: Logger, progress: @escaping @Sendable (Event) -> Void) async throws -> Outcome {
        try await PostgresDatabase.with(url: url, maximumConnections: 2) { database in
            try await database.migrate()
            let lease = InstanceLease(database: database)
            var knowledge: [Pair<any KnowledgeBase>] = []
            for owner in try await PostgresKnowledgeBase.owners(in: database) {
                knowledge.append(Pair(
                    owner: owner, source: PostgresKnowledgeBase(database: database, owner: owner),
                    destination: try KnowledgeStore(path: paths.dataDirectory(ofOwner: owner).knowledgeDatabase.path)
                ))
            }
            var conversations: [Pair<any ConversationStorage>] = []
            for owner in try await PostgresConversationStore.owners(in: database) {
                let destination = paths.dataDirectory(ofOwner: owner)
                try destination.createHome()
                conversations.append(Pair(
                    owner: owner, source: PostgresConversationStore(database: database, owner: owner, lease: lease),
                    destination: QueuedConversationStore(try ConversationStore(path: destination.database.path, attachmentsDirectory: destination.attachments.path))
                ))
            }
            var outcome = try await copy(knowledge, conversations, progress: progress)
            let accounts = try await AccountCopy.copy(from: Accounts(storage: PostgresAccountStore(database: database)), to: Accounts(path: paths.accountsDatabase.path))
            progress(.accounts(accounts))
            outcome.namesTaken = accounts.nameTaken
            try await withShared(url: url, paths: paths, logger: logger) { shared in
                progress(.settings(try await SettingsCopy.copy(from: shared.settings, into: paths)))
            }
            return outcome
        }
    }

    /// Runs `body` with the database at `url` opened as an instance opens it (its settings and keys
    /// loaded, with this data directory's database key), and closes it after.
    public static func withShared<Result>(url: DatabaseURL, paths: SibylPaths, logger: Logger, _ body: (SharedDatabase) async throws -> Result) async throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["SIBYL_DATABASE_URL"] = url.connectionString
        guard let shared = try SharedDatabase.named(by: environment, paths: paths, logger: logger) else {
            throw DatabaseError.unreachable(url: url.description, reason: "no database is named")
        }
        do {
            try await shared.ready()
            let result = try await body(shared)
            await shared.close()
            return result
        } catch {
            await shared.close()
            throw error
        }
    }

    /// One owner's store on each side.
    struct Pair<Store: Sendable>: Sendable {
        var owner: String
        var source: Store
        var destination: Store
    }

    /// Copies each knowledge base and each owner's conversations, reporting as it goes.
    static func copy(_ knowledge: [Pair<any KnowledgeBase>], _ conversations: [Pair<any ConversationStorage>], progress: @escaping @Sendable (Event) -> Void) async throws -> Outcome {
        if knowledge.isEmpty && conversations.isEmpty { progress(.nothingToCopy) }
        var outcome = Outcome()
        for pair in knowledge {
            let owner = name(of: pair.owner)
            let report = try await KnowledgeCopy.copy(from: pair.source, to: pair.destination) { step in progress(.document(owner: owner, step)) }
            progress(.knowledge(owner: owner, report))
            outcome.mismatches += report.mismatches.map { "\(owner): \($0)" }
        }
        for pair in conversations {
            let owner = name(of: pair.owner)
            let report = try await ConversationCopy.copy(from: pair.source, to: pair.destination) { step in progress(.conversation(owner: owner, step)) }
            progress(.conversations(owner: owner, report))
            outcome.mismatches += report.mismatches.map { "\(owner): conversation \($0)" }
        }
        return outcome
    }
}
