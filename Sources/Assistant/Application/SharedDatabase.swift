import Foundation
import Knowledge
import Logging
import PostgresStorage
import Synchronization

/// The PostgreSQL named by `SIBYL_DATABASE_URL`, which several `sibyl serve` instances share:
/// one connection pool per process, for the local user's runtime and every account's. The schema
/// is brought up to date once per process, before the first use (under the database's migration
/// lock, so instances starting together do not race); a failed attempt is tried again on the
/// next use.
///
/// What lives there so far: the knowledge base (collections, documents, passages, their words and
/// vectors). Conversations, accounts, settings and logs stay in the data directory.
public final class SharedDatabase: Sendable {
    public let database: PostgresDatabase
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
    }

    /// Brings the schema up to date, once.
    public func ready() async throws {
        let task = migration.withLock { running in
            if let running { return running }
            let started = Task { _ = try await database.migrate() }
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

    /// Deletes an account's knowledge base (the account was removed).
    public func removeKnowledge(ofAccount id: String) async throws {
        try await knowledgeBase(owner: Self.owner(ofAccount: id)).removeEverything()
    }

    static func owner(ofAccount id: String) -> String { "users/\(id)" }

    public func close() async {
        await database.close()
    }
}
