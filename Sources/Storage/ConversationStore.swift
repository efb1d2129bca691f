import Foundation
internal import GRDB
import SibylCore
import Synchronization

/// Where Sibyl keeps conversations, their messages and attachments, and user-defined personas.
///
/// A file store is an SQLite database in WAL mode, so that readers (a listing in the web UI)
/// never wait for the writer (an answer being saved as it streams in). Every method is
/// synchronous, transactional and safe to call from any thread or task. Dates are kept to the
/// millisecond, so a value read back may differ from the one written by less than that.
public final class ConversationStore: Sendable {
    let database: any DatabaseWriter
    /// Where large attachments go; nil keeps every attachment in the database.
    let files: AttachmentFiles?
    /// The database's path, or a label, for error messages.
    let location: String
    private let changes = Atomic<Int>(0)

    /// Opens (creating it and its parent directories if needed) the database file at `path`.
    public convenience init(path: String, attachmentsDirectory: String) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            // Owner-only, like the rest of the data directory: conversations are private.
            try FileManager.default.createDirectory(
                at: parent, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw StorageError.cannotOpen(path: path, reason: error.localizedDescription)
        }
        let pool: DatabasePool
        do {
            pool = try DatabasePool(path: path, configuration: Self.configuration())
        } catch let error as DatabaseError {
            throw StorageError.cannotOpen(path: path, reason: error.message ?? error.description)
        }
        try self.init(database: pool, files: AttachmentFiles(directory: attachmentsDirectory), location: path)
    }

    /// A store that lives in memory and keeps every attachment in the database: for tests and previews.
    public static func inMemory() throws -> ConversationStore {
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(configuration: configuration())
        } catch let error as DatabaseError {
            throw StorageError.cannotOpen(path: ":memory:", reason: error.message ?? error.description)
        }
        return try ConversationStore(database: queue, files: nil, location: ":memory:")
    }

    init(database: any DatabaseWriter, files: AttachmentFiles?, location: String) throws {
        self.database = database
        self.files = files
        self.location = location
        let migrator = Schema.migrator
        do {
            // Refuse rather than risk writing rows a newer schema would misread.
            if try database.read(migrator.hasBeenSuperseded) {
                throw StorageError.newerDatabase(path: location)
            }
            try migrator.migrate(database)
        } catch let error as DatabaseError {
            throw StorageError.cannotOpen(path: location, reason: error.message ?? error.description)
        }
    }

    /// Closes the database; any later call on this store fails.
    public func close() throws {
        do {
            try database.close()
        } catch let error as DatabaseError {
            throw StorageError.database(error.message ?? error.description)
        }
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "Sibyl conversations"
        // Cascading deletes rely on it; GRDB's default, stated so that no one turns it off.
        configuration.foreignKeysEnabled = true
        // Another process (the CLI beside `sibyl serve`) may hold the file for a moment.
        configuration.busyMode = .timeout(10)
        return configuration
    }

    // MARK: - Access

    /// Runs `body` in a read transaction, reporting SQLite errors as `StorageError`.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        do {
            return try database.read(body)
        } catch let error as DatabaseError {
            throw StorageError.database(error.message ?? error.description)
        }
    }

    /// A number that grows after every write this process makes to the store, committed or not:
    /// a view of the data read after taking it is current for as long as it does not change.
    /// Writes by other processes on the same file do not count.
    public var changeCount: Int {
        changes.load(ordering: .acquiring)
    }

    /// Runs `body` in a write transaction, reporting SQLite errors as `StorageError`.
    func write<T>(_ body: (Database) throws -> T) throws -> T {
        // Counted once the transaction has ended, so a reader that took the count earlier sees it change.
        defer { changes.add(1, ordering: .releasing) }
        do {
            return try database.write(body)
        } catch let error as DatabaseError {
            throw StorageError.database(error.message ?? error.description)
        }
    }
}
