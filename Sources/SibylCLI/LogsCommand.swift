public import ArgumentParser
import Assistant
import Foundation
import SibylApp
import Storage

extension LogEntry.Level: ExpressibleByArgument {}
extension LogExportFormat: ExpressibleByArgument {}

/// `sibyl logs`: what Sibyl did, filterable and exportable.
struct Logs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the log of operations (documents added, answers, installs …), filtered or exported.")

    @OptionGroup var global: GlobalOptions
    @Option(help: "Lowest level shown: debug, info, warning or error.") var level: LogEntry.Level = .debug
    @Option(help: "Only entries newer than this: 30m, 2h, 7d, or a date (2026-11-23).") var since: String?
    @Option(help: "Only entries older than this: 30m, 2h, 7d, or a date.") var until: String?
    @Option(help: "Only this operation, such as ask, docs or docs.add.") var operation: String?
    @Option(help: "Only entries containing this text.") var grep: String?
    @Option(help: "Print as jsonl, json or csv instead of a table.") var export: LogExportFormat?
    @Option(help: "Show at most this many (the newest).") var limit = 200

    func run() async throws {
        try await global.withRuntime { runtime in
            let query = LogQuery(
                minimumLevel: level, since: try since.map(Self.parseTime), until: try until.map(Self.parseTime),
                operation: operation, matching: grep, limit: limit
            )
            if let export {
                await Terminal.write(try runtime.admin.exportLogs(query, as: export))
                return
            }
            let entries = try await runtime.admin.logs(query)
            guard !entries.isEmpty else {
                Terminal.print("No log entries match.")
                return
            }
            Terminal.print(Format.table(["WHEN", "LEVEL", "WHAT", "MESSAGE"], entries.map { entry in
                [Format.date(entry.date), Self.paint(entry.level), entry.category, entry.message]
            }))
        }
    }

    /// An age (`30m`, `2h`, `7d`, `1w`) before now, or a date.
    static func parseTime(_ text: String) throws -> Date {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400, "w": 604_800]
        if let unit = text.last, let seconds = units[unit], let amount = Double(text.dropLast()) {
            return Date().addingTimeInterval(-amount * seconds)
        }
        if let date = WireCoding.date(from: text) { return date }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd HH:mm", "yyyy-MM-dd"] {
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        throw ValidationError("--since and --until take an age such as 30m, 2h or 7d, or a date such as 2026-11-23.")
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
