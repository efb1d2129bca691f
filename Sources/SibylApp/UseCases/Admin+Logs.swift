public import Assistant
public import Foundation
import SibylCore
public import Storage

extension SibylRuntime.Admin {
    /// Log entries, oldest first.
    public func logs(_ query: LogQuery) async throws -> [LogEntry] {
        try await runtime.store.logEntries(
            minimumLevel: query.minimumLevel, since: query.since, until: query.until, operation: query.operation,
            matching: query.matching, limit: min(max(query.limit, 1), 100_000)
        )
    }

    /// Log entries as a file in one of the export formats.
    public func exportLogs(_ query: LogQuery, as format: LogExportFormat) async throws -> Data {
        let entries = try await logs(query).map(Wire.LogEntry.init)
        switch format {
        case .json:
            return try WireCoding.encoder.encode(entries)
        case .jsonl:
            let encoder = WireCoding.compactEncoder
            var data = Data()
            for entry in entries {
                data.append(try encoder.encode(entry))
                data.append(UInt8(ascii: "\n"))
            }
            return data
        case .csv:
            var text = "at,level,operation,message,details\n"
            for entry in entries {
                let fields = [WireCoding.dateString(entry.at), entry.level.rawValue, entry.operation, entry.message, entry.details.map(WireCoding.jsonText) ?? ""]
                text += fields.map(Self.csvField).joined(separator: ",") + "\n"
            }
            return Data(text.utf8)
        }
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { ",\"\n\r".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
