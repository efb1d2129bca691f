public import Foundation
import Logging
import PostgresNIO
import SibylCore
public import Storage

extension PostgresConversationStore {
    public func log(_ level: LogEntry.Level, _ category: String, _ message: String, detailsJSON: String?) async throws {
        let details = detailsJSON.map { Redaction.redact($0) }
        try await calling {
            try await database.client.query("""
                INSERT INTO cv_log (owner, at, level, category, message, details)
                VALUES (\(owner), \(Timestamp.milliseconds(Date())), \(level.rawValue), \(category), \(Redaction.redact(message)), \(details))
                """, logger: logger)
        }
    }

    public func logEntries(minimumLevel: LogEntry.Level, since: Date?, until: Date?, operation: String?, matching text: String?, limit: Int?) async throws -> [LogEntry] {
        var bindings = PostgresBindings(capacity: 8)
        bindings.append(owner)
        bindings.append(LogEntry.Level.allCases.filter { $0 >= minimumLevel }.map(\.rawValue))
        var sql = "SELECT id, at, level, category, message, details FROM cv_log WHERE owner = $1 AND level = ANY($2)"
        if let since {
            bindings.append(Timestamp.milliseconds(since))
            sql += " AND at >= $\(bindings.count)"
        }
        if let until {
            bindings.append(Timestamp.milliseconds(until))
            sql += " AND at <= $\(bindings.count)"
        }
        if let operation, !operation.isEmpty {
            bindings.append(operation)
            bindings.append(Self.escapedForLike(operation) + ".%")
            sql += " AND (category = $\(bindings.count - 1) OR category LIKE $\(bindings.count) ESCAPE '!')"
        }
        if let text, !text.isEmpty {
            bindings.append("%" + Self.escapedForLike(text) + "%")
            let pattern = "$\(bindings.count)"
            sql += " AND (message ILIKE \(pattern) ESCAPE '!' OR category ILIKE \(pattern) ESCAPE '!' OR details ILIKE \(pattern) ESCAPE '!')"
        }
        sql += " ORDER BY at DESC, id DESC"
        if let limit {
            bindings.append(limit)
            sql += " LIMIT $\(bindings.count)"
        }
        let query = PostgresQuery(unsafeSQL: sql, binds: bindings)
        return try await calling {
            var entries: [LogEntry] = []
            let rows = try await database.client.query(query, logger: logger)
            for try await (id, at, level, category, message, details) in rows.decode((Int64, Int64, String, String, String, String?).self) {
                entries.append(LogEntry(
                    id: id, date: Timestamp.date(milliseconds: at), level: LogEntry.Level(rawValue: level) ?? .info,
                    category: category, message: message, details: details
                ))
            }
            return entries.reversed()
        }
    }
}
