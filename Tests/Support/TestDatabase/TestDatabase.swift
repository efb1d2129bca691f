import Foundation
import Knowledge
import PostgresStorage
import Storage

/// The test PostgreSQL (`SIBYL_TEST_DATABASE_URL`, which `scripts/test.sh` sets after starting
/// one), and a fresh database on it per test.
public enum TestDatabase {
    public static let url = ProcessInfo.processInfo.environment["SIBYL_TEST_DATABASE_URL"].flatMap { try? DatabaseURL($0) }

    struct NoServer: Error, CustomStringConvertible {
        var description: String { "no PostgreSQL to test against (set SIBYL_TEST_DATABASE_URL; scripts/test.sh does)" }
    }

    /// Runs `body` with a database of its own, dropped afterwards.
    public static func with(_ body: (DatabaseURL) async throws -> Void) async throws {
        guard let url else { throw NoServer() }
        try await PostgresDatabase.with(url: url) { admin in
            try await admin.withScratchDatabase(prefix: "sibyl_test", body)
        }
    }

    /// Runs `body` with a migrated database of its own, open, closed and dropped afterwards.
    public static func withMigrated(_ body: (PostgresDatabase) async throws -> Void) async throws {
        try await with { url in
            try await PostgresDatabase.with(url: url) { database in
                try await database.migrate()
                try await body(database)
            }
        }
    }
}

/// Where a storage test keeps its knowledge base: every storage test runs on each back end there is
/// (PostgreSQL only when a test server is named).
public enum KnowledgeBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    /// The back ends this run can test.
    public static var available: [KnowledgeBackend] { TestDatabase.url == nil ? [.sqlite] : [.sqlite, .postgres] }

    public var description: String { rawValue }

    /// Runs `body` with an empty knowledge base of this kind.
    public func with(_ body: (any KnowledgeBase) async throws -> Void) async throws {
        switch self {
        case .sqlite: try await body(KnowledgeStore.inMemory())
        case .postgres: try await TestDatabase.withMigrated { database in try await body(PostgresKnowledgeBase(database: database)) }
        }
    }
}

/// Where a conversation-storage test keeps its conversations: each back end there is (PostgreSQL
/// only when a test server is named).
public enum ConversationBackend: String, Sendable, CaseIterable, CustomStringConvertible {
    case sqlite
    case postgres

    /// The back ends this run can test.
    public static var available: [ConversationBackend] { TestDatabase.url == nil ? [.sqlite] : [.sqlite, .postgres] }

    public var description: String { rawValue }

    /// Runs `body` with an empty store of this kind (a SQLite file in a temporary directory, or a
    /// fresh database with this process's lease held).
    public func with(_ body: (any ConversationStorage) async throws -> Void) async throws {
        switch self {
        case .sqlite:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-conversations-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = try ConversationStore(path: folder.appendingPathComponent("conversations.sqlite").path, attachmentsDirectory: folder.appendingPathComponent("attachments").path)
            try await body(QueuedConversationStore(store))
        case .postgres:
            try await TestDatabase.withMigrated { database in
                let lease = InstanceLease(database: database)
                try await lease.hold()
                do {
                    try await body(PostgresConversationStore(database: database, owner: "", lease: lease))
                } catch {
                    await lease.release()
                    throw error
                }
                await lease.release()
            }
        }
    }
}
