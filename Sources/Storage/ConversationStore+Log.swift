public import Foundation
internal import GRDB
import SibylCore

/// One operation Sibyl performed, as `sibyl logs` shows it.
public struct LogEntry: Sendable, Hashable {
    public enum Level: String, Sendable, CaseIterable, Comparable, Codable {
        case debug, info, warning, error

        public static func < (lhs: Level, rhs: Level) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    public var id: Int64
    public var date: Date
    public var level: Level
    /// What kind of operation: `docs.add`, `ask`, `models.install` …
    public var category: String
    public var message: String
    /// Structured details as a JSON object text, when there are any.
    public var details: String?

    public init(id: Int64, date: Date, level: Level, category: String, message: String, details: String?) {
        self.id = id
        self.date = date
        self.level = level
        self.category = category
        self.message = message
        self.details = details
    }
}

extension ConversationStore {
    /// Appends to the operations log; secrets in the message and details are redacted.
    public func log(_ level: LogEntry.Level, _ category: String, _ message: String, details: [String: any Sendable]? = nil) throws {
        var detailsText: String?
        if let details, JSONSerialization.isValidJSONObject(details),
           let data = try? JSONSerialization.data(withJSONObject: details, options: [.sortedKeys]) {
            detailsText = String(decoding: data, as: UTF8.self)
        }
        try log(level, category, message, detailsJSON: detailsText)
    }

    /// Appends to the operations log with details already as a JSON object text; secrets are redacted.
    public func log(_ level: LogEntry.Level, _ category: String, _ message: String, detailsJSON: String?) throws {
        let detailsText = detailsJSON.map { Redaction.redact($0) }
        try write { db in
            try db.execute(
                sql: "INSERT INTO log_entry (at, level, category, message, details) VALUES (?, ?, ?, ?, ?)",
                arguments: [Timestamp.milliseconds(Date()), level.rawValue, category, Redaction.redact(message), detailsText]
            )
        }
    }

    /// Log entries, oldest first, filtered by minimum level, time, operation (`docs` also takes
    /// `docs.add`) and a case-insensitive text match; `limit` keeps the newest.
    public func logEntries(
        minimumLevel: LogEntry.Level = .debug, since: Date? = nil, until: Date? = nil, operation: String? = nil, matching text: String? = nil, limit: Int? = nil
    ) throws -> [LogEntry] {
        let levels = LogEntry.Level.allCases.filter { $0 >= minimumLevel }.map(\.rawValue)
        var sql = "SELECT * FROM log_entry WHERE level IN (\(levels.map { _ in "?" }.joined(separator: ",")))"
        var arguments = StatementArguments(levels)
        if let since {
            sql += " AND at >= ?"
            arguments += [Timestamp.milliseconds(since)]
        }
        if let until {
            sql += " AND at <= ?"
            arguments += [Timestamp.milliseconds(until)]
        }
        if let operation, !operation.isEmpty {
            sql += " AND (category = ? OR category LIKE ? ESCAPE '!')"
            let escaped = operation.replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%").replacingOccurrences(of: "_", with: "!_")
            arguments += [operation, escaped + ".%"]
        }
        if let text, !text.isEmpty {
            sql += " AND (message LIKE ? ESCAPE '!' OR category LIKE ? ESCAPE '!' OR details LIKE ? ESCAPE '!')"
            let escaped = text.replacingOccurrences(of: "!", with: "!!").replacingOccurrences(of: "%", with: "!%").replacingOccurrences(of: "_", with: "!_")
            let pattern = "%" + escaped + "%"
            arguments += [pattern, pattern, pattern]
        }
        sql += " ORDER BY at DESC, id DESC"
        if let limit {
            sql += " LIMIT ?"
            arguments += [limit]
        }
        return try read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).reversed().map { row in
                LogEntry(
                    id: row["id"], date: Date(timeIntervalSince1970: Double(row["at"] as Int64) / 1000),
                    level: LogEntry.Level(rawValue: row["level"]) ?? .info, category: row["category"], message: row["message"], details: row["details"]
                )
            }
        }
    }
}
