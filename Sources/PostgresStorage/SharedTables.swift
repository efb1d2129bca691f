import Logging
import PostgresNIO

/// A store of tables every instance shares: each call first brings the schema up to date (once,
/// through `ready`), and reports a lost database plainly.
protocol SharedTables {
    var database: PostgresDatabase { get }
    /// Brings the schema up to date (and whatever else must precede the first call), once.
    var ready: @Sendable () async throws -> Void { get }
}

extension SharedTables {
    var logger: Logger { database.logger }

    /// Runs `body` (statements on the pool) once the tables are ready.
    @discardableResult
    func calling<T>(_ body: () async throws -> T) async throws -> T {
        try await ready()
        return try await database.reachable(body)
    }

    /// Runs `body` in one transaction once the tables are ready, again when PostgreSQL cancelled
    /// it to break a deadlock or a serialization conflict.
    @discardableResult
    func writing<T>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try await ready()
        return try await database.retryingConflicts {
            try await database.client.withTransaction(logger: logger) { connection in try await body(connection) }
        }
    }
}
