public import Accounts
import Assistant
import Foundation
import Knowledge
public import Logging
public import PostgresStorage
public import SibylConfig
import SibylCore
import Storage
import Synchronization

/// The PostgreSQL named by `SIBYL_DATABASE_URL`, which several `sibyl serve` instances share:
/// one connection pool per process, for the local user's runtime and every account's. The schema
/// is brought up to date once per process, before the first use (under the database's migration
/// lock, so instances starting together do not race); a failed attempt is tried again on the
/// next use.
///
/// What lives there: the knowledge base (collections, documents, passages, their words and
/// vectors), conversations with their messages and attachments, personas and the operations log,
/// the accounts with their sessions and API tokens, and the shared settings and API keys (sealed;
/// see `SharedSettings`). Once ready, the process holds its `InstanceLease`, which marks the
/// answers it writes as those of a live process, and keeps the shared settings current.

public final class SharedDatabase: Sendable {
    public let database: PostgresDatabase
    /// This process's claim on the answers it writes.
    public let lease: InstanceLease
    /// The settings and API keys every instance on the database uses.
    public let settings: SharedSettings
    /// Brings the schema up to date and takes the instance lease, once per process.
    private let prepare: @Sendable () async throws -> Void

    /// The database the environment names, or nil when Sibyl keeps everything in its data directory.
    /// `paths` is this instance's data directory, whose secrets store holds the key the shared
    /// API keys are sealed with.
    public static func named(by environment: [String: String], paths: SibylPaths, logger: Logger) throws -> SharedDatabase? {
        guard let text = environment["SIBYL_DATABASE_URL"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        var databaseLogger = logger
        databaseLogger[metadataKey: "component"] = "postgres"
        let database = try PostgresDatabase(url: try DatabaseURL(text), logger: databaseLogger)
        return SharedDatabase(database: database, keyring: DatabaseKeyring(paths: paths, environment: environment), logger: logger)
    }

    init(database: PostgresDatabase, keyring: DatabaseKeyring, logger: Logger) {
        self.database = database
        let lease = InstanceLease(database: database)
        self.lease = lease
        let schema = SingleFlight<Void>()
        let prepare: @Sendable () async throws -> Void = {
            try await schema.value {
                _ = try await database.migrate()
                try await lease.hold()
            }
        }
        self.prepare = prepare
        settings = SharedSettings(store: PostgresSettingsStore(database: database, ready: prepare), keyring: keyring, logger: logger)
    }

    /// Brings the schema up to date and takes the instance lease, once; then reads the shared
    /// settings and keeps them current.
    public func ready() async throws {
        try await prepare()
        if !settings.isLoaded {
            try await settings.load()
            settings.watch()
        }
    }

    /// The knowledge base of one data directory's owner ("" for the local user, `users/ID` for an account).
    func knowledgeBase(owner: String) async throws -> PostgresKnowledgeBase {
        try await ready()
        return PostgresKnowledgeBase(database: database, owner: owner)
    }

    /// The conversations, personas and log of one owner.
    func conversations(owner: String) -> PostgresConversationStore {
        PostgresConversationStore(database: database, owner: owner, lease: lease) { try await self.ready() }
    }

    /// The accounts, their sessions and API tokens, and the count of failed sign-ins: one of each
    /// for every instance on the database.
    public func accounts() -> Accounts {
        Accounts(
            storage: PostgresAccountStore(database: database) { try await self.ready() },
            throttle: PostgresLoginThrottle(database: database) { try await self.ready() }
        )
    }

    /// Deletes an account's documents, conversations, personas and log (the account was removed).
    public func removeData(ofAccount id: String) async throws {
        let owner = Self.owner(ofAccount: id)
        try await knowledgeBase(owner: owner).removeEverything()
        try await conversations(owner: owner).removeEverything()
        try await settings.removeKeys(owner: owner)
    }

    static func owner(ofAccount id: String) -> String { SibylPaths.owner(ofAccount: id) }

    /// Stops listening, lets the instance lease go and closes the connections, giving up on what
    /// the database does not answer by `deadline`.
    public func close(by deadline: ContinuousClock.Instant = .now + .seconds(10)) async {
        await settings.stop(by: deadline)
        await lease.release(by: deadline)
        await database.close(by: deadline)
    }
}
