import ArgumentParser
import Assistant
import Foundation
import Storage

/// Writes CLI operations to the operations log; a logging failure never fails the command.
enum OperationLog {
    static func record(_ runtime: SibylRuntime, _ category: String, level: LogEntry.Level = .info, message: String, details: [String: Any]? = nil) throws {
        let sendable = details.flatMap { JSONSerialization.isValidJSONObject($0) ? $0 : nil }.map { details in
            details.mapValues { value -> any Sendable in
                (try? JSONSerialization.data(withJSONObject: ["v": value])).flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: any Sendable] }?["v"] ?? String(describing: value)
            }
        }
        try? runtime.store.log(level, category, message, details: sendable)
    }
}

extension LogEntry.Level: ExpressibleByArgument {}

/// `sibyl logs`: what Sibyl did, filterable and exportable.
struct Logs: AsyncParsableCommand {
    enum ExportFormat: String, ExpressibleByArgument, CaseIterable { case jsonl, csv }

    static let configuration = CommandConfiguration(abstract: "Show the log of operations (documents added, answers, installs …), filtered or exported.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Lowest level shown: debug, info, warning or error.") var level: LogEntry.Level = .debug
    @Option(help: "Only entries newer than this: 30m, 2h, 7d, or a date (2026-11-23).") var since: String?
    @Option(help: "Only entries containing this text.") var grep: String?
    @Option(help: "Print as jsonl or csv instead of a table.") var export: ExportFormat?
    @Option(help: "Show at most this many (the newest).") var limit = 200

    func run() async throws {
        try await reportingErrors {
            let runtime = try global.runtime()
            let start = try since.map(Self.parseSince)
            let entries = try runtime.store.logEntries(minimumLevel: level, since: start, matching: grep, limit: limit)
            let iso = ISO8601DateFormatter()
            switch export {
            case .jsonl:
                for entry in entries {
                    var object: [String: Any] = ["at": iso.string(from: entry.date), "level": entry.level.rawValue, "category": entry.category, "message": entry.message]
                    if let details = entry.details, let parsed = try? JSONSerialization.jsonObject(with: Data(details.utf8)) { object["details"] = parsed }
                    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
                    Terminal.print(String(decoding: data, as: UTF8.self))
                }
            case .csv:
                Terminal.print("at,level,category,message,details")
                for entry in entries {
                    Terminal.print([iso.string(from: entry.date), entry.level.rawValue, entry.category, entry.message, entry.details ?? ""].map(Self.csvField).joined(separator: ","))
                }
            case nil:
                guard !entries.isEmpty else {
                    Terminal.print("No log entries match.")
                    return
                }
                Terminal.print(Format.table(["WHEN", "LEVEL", "WHAT", "MESSAGE"], entries.map { entry in
                    [Format.date(entry.date), Self.paint(entry.level), entry.category, entry.message]
                }))
            }
        }
    }

    static func parseSince(_ text: String) throws -> Date {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = text.last, let seconds = units[unit], let amount = Double(text.dropLast()) {
            return Date().addingTimeInterval(-amount * seconds)
        }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        throw ValidationError("--since takes an age such as 30m, 2h or 7d, or a date such as 2026-11-23.")
    }

    static func csvField(_ text: String) -> String {
        guard text.contains(where: { ",\"\n\r".contains($0) }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    static func paint(_ level: LogEntry.Level) -> String {
        switch level {
        case .debug: Terminal.dim("debug")
        case .info: "info"
        case .warning: Terminal.yellow("warning")
        case .error: Terminal.red("error")
        }
    }
}
