import Foundation
public import Logging
import SibylCore
import NIOSSL
public import PostgresNIO
import Synchronization

/// Sibyl's PostgreSQL: a connection pool (postgres-nio's `PostgresClient`) running for the life of
/// this value, and the schema brought up to date on start. Several `sibyl serve` instances may
/// start at once against one database: migrations run under an advisory lock, so one applies them
/// and the others find them done.
public final class PostgresDatabase: Sendable {
    public let url: DatabaseURL
    public let client: PostgresClient
    private let running: Task<Void, Never>
    let logger: Logger
    /// The same server for one connection of its own, to find out quickly whether it answers (the
    /// pool would keep trying for a minute before it gave up).
    private let probe: PostgresConnection.Configuration
    private let answered = Mutex(false)

    /// HNSW's candidate list (`hnsw.ef_search`) every connection starts with.
    public let searchEF: Int

    /// Connects (lazily: the pool opens connections as queries need them). `searchEF` is set when
    /// each connection starts, so a vector query needs no statement of its own to set it.
    public init(url: DatabaseURL, maximumConnections: Int = 20, searchEF: Int = 100, logger: Logger = Logger(label: "sibyl.postgres")) throws {
        self.url = url
        self.logger = logger
        self.searchEF = searchEF
        var configuration: PostgresClient.Configuration
        switch url.endpoint {
        case .unixSocket(let path):
            configuration = .init(unixSocketPath: path, username: url.username, password: url.password, database: url.database)
            probe = .init(unixSocketPath: path, username: url.username, password: url.password, database: url.database)
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS = switch url.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
            let probeTLS: PostgresConnection.Configuration.TLS = switch url.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
            configuration = .init(host: host, port: port, username: url.username, password: url.password, database: url.database, tls: tls)
            probe = .init(host: host, port: port, username: url.username, password: url.password, database: url.database, tls: probeTLS)
        }
        configuration.options.maximumConnections = maximumConnections
        // A filtered vector search (one collection, one owner) walks on until it has enough rows.
        // The server probes an idle connection after 10 s, every 5 s, and gives up after 3 misses:
        // a machine that lost power is then found gone within about 25 s, which ends its session
        // and so frees its instance lease (see `InstanceLease`), rather than after the system's
        // two hours. (Unix sockets need no probing and ignore these.) BM25 for a frequent word
        // adds up a row per passage holding it: 32 MB (per query step that needs it) keeps half a
        // million such sums in memory instead of spilling them to disk.
        configuration.options.additionalStartupParameters = [
            ("hnsw.ef_search", String(searchEF)), ("hnsw.iterative_scan", "strict_order"), ("work_mem", "32MB"),
            ("tcp_keepalives_idle", "10"), ("tcp_keepalives_interval", "5"), ("tcp_keepalives_count", "3"),
        ]
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        running = Task { await client.run() }
    }

    /// Closes every connection. The pool's shutdown waits until each connection reports closed;
    /// should one never report (seen, rarely, on a loaded machine), the wait ends after `patience`
    /// rather than hang whoever closes, and the rest of the shutdown goes on in the background.
    public func close(patience: Duration = .seconds(10)) async {
        await close(by: .now + patience)
    }

    /// Closes every connection, waiting at most until `deadline` (see `close(patience:)`).
    public func close(by deadline: ContinuousClock.Instant) async {
        running.cancel()
        let running = running
        if await !waitForWork(until: deadline, { await running.value }) {
            logger.warning("the database's connections did not all close in time; going on without waiting")
        }
    }

    /// The server's version and pgvector's, which also proves the database answers.
    public func serverInfo() async throws -> (server: String, vector: String?) {
        try await reachable {
            let rows = try await client.query("SELECT current_setting('server_version'), (SELECT extversion FROM pg_extension WHERE extname = 'vector')", logger: logger)
            for try await (server, vector) in rows.decode((String, String?).self) { return (server, vector) }
            throw DatabaseError.unreachable(url: url.description, reason: "the server sent no version")
        }
    }

    /// Runs a database call, turning connection failures into a plain message; the first call
    /// checks with one connection of its own that the server answers.
    @discardableResult
    func reachable<T>(_ body: () async throws -> T) async throws -> T {
        do {
            if !answered.withLock({ $0 }) {
                var probe = self.probe
                probe.options.connectTimeout = .seconds(10)
                let connection = try await PostgresConnection.connect(configuration: probe, id: 0, logger: logger)
                try await connection.close()
                answered.withLock { $0 = true }
            }
            return try await body()
        } catch {
            throw translated(error)
        }
    }

    /// Runs a write, again when PostgreSQL broke a deadlock or a serialization conflict by
    /// cancelling it (each try must be a whole transaction, so nothing half-done remains).
    func retryingConflicts<T>(_ body: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await reachable(body)
            } catch DatabaseError.conflict where attempt < 4 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(20 * attempt))
            }
        }
    }

    /// What a failed call means to the user: the server's own refusal, a conflict worth another
    /// try, or no server; errors of Sibyl's own (a document refused, a cancellation) pass unchanged.
    func translated(_ error: any Error) -> any Error {
        switch error {
        case let error as PostgresTransactionError:
            if let cause = error.closureError ?? error.commitError ?? error.beginError { return translated(cause) }
            return DatabaseError.refused(String(describing: error))
        case let error as PSQLError where error.serverInfo != nil:
            // The server answered, with an error of its own.
            let state = error.serverInfo?[.sqlState]
            if state == "40P01" || state == "40001" { return DatabaseError.conflict(Self.describe(error)) }
            return DatabaseError.refused(Self.describe(error))
        case let error as PSQLError:
            return DatabaseError.unreachable(url: url.description, reason: Self.describe(error))
        case is DatabaseError, is CancellationError, is any LocalizedError:
            return error
        default:
            return DatabaseError.unreachable(url: url.description, reason: String(describing: error))
        }
    }

    static func describe(_ error: PSQLError) -> String {
        if let message = error.serverInfo?[.message] { return message }
        if let underlying = error.underlying { return String(describing: underlying) }
        return String(describing: error.code)
    }
}

extension PostgresDatabase {
    /// Opens the database for `body` and closes it however `body` ends.
    public static func with<T>(
        url: DatabaseURL, maximumConnections: Int = 20, searchEF: Int = 100, _ body: (PostgresDatabase) async throws -> T
    ) async throws -> T {
        let database = try PostgresDatabase(url: url, maximumConnections: maximumConnections, searchEF: searchEF)
        do {
            let result = try await body(database)
            await database.close()
            return result
        } catch {
            await database.close()
            throw error
        }
    }

    /// Runs `body` with a database of its own on this server (a test, a benchmark run): made for
    /// it, named `PREFIX_NUMBER`, and dropped however `body` ends.
    public func withScratchDatabase<T>(prefix: String, _ body: (DatabaseURL) async throws -> T) async throws -> T {
        let name = "\(prefix)_\(UInt32.random(in: 0...UInt32.max))"
        try await createDatabase(name)
        var scoped = url
        scoped.database = name
        do {
            let result = try await body(scoped)
            try await dropDatabase(name)
            return result
        } catch {
            try? await dropDatabase(name)
            throw error
        }
    }

    /// Makes a database on this server (for a test or a benchmark run); the name is letters,
    /// digits and underscores.
    public func createDatabase(_ name: String) async throws {
        try Self.checkName(name)
        try await reachable { _ = try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger) }
    }

    /// Drops a database, closing the connections others hold to it.
    public func dropDatabase(_ name: String) async throws {
        try Self.checkName(name)
        try await reachable { _ = try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger) }
    }

    private static func checkName(_ name: String) throws {
        guard !name.isEmpty, name.count <= 63, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }), !name.first!.isNumber else {
            throw DatabaseError.badURL("a database name is letters, digits and underscores, not \(name)")
        }
    }
}
