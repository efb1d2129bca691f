import Assistant
import Foundation
import SibylApp
import SibylCore

/// Shared ways of showing values in the terminal.
enum Format {
    static func shortID(_ id: UUID) -> String {
        String(id.uuidString.lowercased().prefix(8))
    }

    static func date(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd HH:mm"
        return formatter.string(from: date)
    }

    static func seconds(_ duration: Duration) -> String {
        String(format: "%.2f s", Double(duration.milliseconds) / 1000)
    }

    /// The line shown under an answer: model, tokens, timings.
    static func answerFooter(model: String?, usage: TokenUsage?, timings: Timings?) -> String {
        var parts: [String] = []
        if let model, !model.isEmpty { parts.append(model) }
        if let usage { parts.append("\(usage.promptTokens) + \(usage.completionTokens) tokens") }
        if let first = timings?.timeToFirstToken { parts.append("first token \(seconds(first))") }
        if let total = timings?.total { parts.append("total \(seconds(total))") }
        return parts.joined(separator: " · ")
    }

    /// A plain table: columns padded to their widest cell.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0 }
        func line(_ row: [String]) -> String {
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: "  ")
        }
        return ([Terminal.bold(line(header))] + rows.map(line)).joined(separator: "\n")
    }

    /// The start of a text on one line.
    static func excerpt(_ text: String, length: Int = 300) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > length ? String(flat.prefix(length)) + "…" : flat
    }

    /// A wire value as Sibyl's JSON (the same shape the HTTP API returns).
    static func json(_ value: some Encodable) -> String {
        (try? WireCoding.encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
