import Accounts
import Foundation
import Knowledge
import Logging
import PostgresStorage
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
/// and the accounts with their sessions and API tokens. Settings and keys stay in the data
/// directory. Once ready, the process holds its
/// `InstanceLease`, which marks the answers it writes as those of a live process.

public final class SharedDatabase: Sendable {
    public let database: PostgresDatabase
    /// This process's claim on the answers it writes.
    public let lease: InstanceLease
    private let migration = Mutex<Task<Void, any Error>?>(nil)

    /// The database the environment names, or nil when Sibyl keeps everything in its data directory.
    public static func named(by environment: [String: String], logger: Logger) throws -> SharedDatabase? {
        guard let text = environment["SIBYL_DATABASE_URL"]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        var databaseLogger = logger
        databaseLogger[metadataKey: "component"] = "postgres"
        return SharedDatabase(database: try PostgresDatabase(url: try DatabaseURL(text), logger: databaseLogger))
    }

    init(database: PostgresDatabase) {
        self.database = database
        lease = InstanceLease(database: database)
    }

    /// Brings the schema up to date and takes the instance lease, once.
    public func ready() async throws {
        let task = migration.withLock { running in
            if let running { return running }
            let started = Task { [database, lease] in
                _ = try await database.migrate()
                try await lease.hold()
            }
            running = started
            return started
        }
        do {
            try await task.value
        } catch {
            migration.withLock { $0 = nil }
            throw error
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

    /// The accounts, their sessions and API tokens: one set for every instance on the database.
    public func accounts() -> Accounts {
        Accounts(storage: PostgresAccountStore(database: database) { try await self.ready() })
    }

    /// Deletes an account's documents, conversations, personas and log (the account was removed).
    public func removeData(ofAccount id: String) async throws {
        let owner = Self.owner(ofAccount: id)
        try await knowledgeBase(owner: owner).removeEverything()
        try await conversations(owner: owner).removeEverything()
    }

    static func owner(ofAccount id: String) -> String { "users/\(id)" }

    public func close() async {
        await lease.release()
        await database.close()
    }
}
