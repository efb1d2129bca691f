public import Foundation
import SibylCore
public import Storage

/// Which log entries to read.
public struct LogQuery: Sendable, Hashable {
    public var minimumLevel: LogEntry.Level
    public var since: Date?
    public var until: Date?
    /// Only this operation (`ask`, `docs.add` …), or those under it (`docs` takes `docs.add` too).
    public var operation: String?
    /// Only entries containing this text.
    public var matching: String?
    /// At most this many, the newest.
    public var limit: Int

    public init(minimumLevel: LogEntry.Level = .debug, since: Date? = nil, until: Date? = nil, operation: String? = nil, matching: String? = nil, limit: Int = 200) {
        self.minimumLevel = minimumLevel
        self.since = since
        self.until = until
        self.operation = operation
        self.matching = matching
        self.limit = limit
    }
}

/// The file formats logs export to.
public enum LogExportFormat: String, Sendable, CaseIterable, Codable {
    /// One JSON object per line.
    case jsonl
    /// A JSON array.
    case json
    case csv
}
