import Foundation
import SibylCore

/// Renders a conversation as a Markdown document for people to read, share or print.
enum MarkdownTranscript {
    static func render(_ conversation: Conversation, messages: [Message]) -> String {
        var lines: [String] = []
        let title = conversation.title.map(oneLine) ?? ""
        lines.append("# \(title.isEmpty ? "Untitled conversation" : title)")
        lines.append("")
        let count = messages.count == 1 ? "1 message" : "\(messages.count) messages"
        let metadata = [
            "Persona: \(conversation.persona)",
            "Mode: \(conversation.mode)",
            "Source: \(conversation.source.rawValue)",
            "Created: \(Timestamp.readable(conversation.createdAt, seconds: false))",
            count,
            "ID: \(conversation.id.storageKey.prefix(8))",
        ]
        lines.append("*\(metadata.joined(separator: " · "))*")
        for message in messages {
            lines.append("")
            lines.append("---")
            lines.append("")
            lines.append(contentsOf: section(for: message))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func section(for message: Message) -> [String] {
        var heading = "## \(roleName(message.role)) · \(Timestamp.readable(message.createdAt))"
        switch message.status {
        case .complete: break
        case .pending: heading += " · unfinished"
        case .failed: heading += " · failed"
        case .cancelled: heading += " · cancelled"
        }
        var lines = [heading, ""]
        let text = message.text.trimmingCharacters(in: .whitespacesAndNewlines)
        if !text.isEmpty {
            lines.append(text)
            lines.append("")
        }
        if let notice = statusNotice(for: message) {
            lines.append(notice)
            lines.append("")
        }
        if !message.citations.isEmpty {
            lines.append("Sources:")
            for citation in message.citations {
                if citation.memory != nil {
                    lines.append("- [\(citation.number)] from your memory: \(citation.quote)")
                    continue
                }
                let location = citation.location.isEmpty ? "" : " — \(citation.location)"
                // A tool's result names the call that gave it.
                let source = citation.tool.map { "tool \(citation.documentTitle) \($0.arguments)\($0.isError ? " (failed)" : "")" } ?? citation.documentTitle
                lines.append("- [\(citation.number)] \(source)\(location)")
            }
            lines.append("")
        }
        if !message.attachments.isEmpty {
            lines.append("Attachments:")
            for attachment in message.attachments {
                let name = attachment.filename ?? "\(attachment.kind.rawValue) \(attachment.id.storageKey.prefix(8))"
                lines.append("- \(name) (\(attachment.mimeType), \(byteCount(attachment.data.count)))")
            }
            lines.append("")
        }
        if let details = details(for: message) {
            lines.append("<sub>\(details)</sub>")
            lines.append("")
        }
        if lines.last == "" { lines.removeLast() }
        return lines
    }

    private static func statusNotice(for message: Message) -> String? {
        let error = message.error.map(oneLine).flatMap { $0.isEmpty ? nil : $0 }
        switch message.status {
        case .complete:
            return nil
        case .pending:
            return "> **Unfinished:** the answer was still being written when this was exported."
        case .failed:
            return "> **Failed:** \(error ?? "the answer did not complete.")"
        case .cancelled:
            return "> **Cancelled:** \(error ?? "stopped before the answer was complete.")"
        }
    }

    /// Model, tokens and timings on one small line: useful to some readers, noise to most.
    private static func details(for message: Message) -> String? {
        var parts: [String] = []
        if let model = message.model, !model.isEmpty { parts.append(model) }
        if let usage = message.usage {
            parts.append("\(usage.promptTokens) prompt + \(usage.completionTokens) completion tokens")
        }
        if let timings = message.timings {
            if let first = timings.timeToFirstTokenMilliseconds { parts.append("first token \(duration(first))") }
            parts.append("\(duration(timings.totalMilliseconds)) total")
        }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    private static func roleName(_ role: ChatRole) -> String {
        switch role {
        case .system: "System"
        case .user: "User"
        case .assistant: "Assistant"
        }
    }

    private static func duration(_ milliseconds: Int) -> String {
        milliseconds < 1000 ? "\(milliseconds) ms" : String(format: "%.2f s", Double(milliseconds) / 1000)
    }

    private static func byteCount(_ bytes: Int) -> String {
        switch bytes {
        case ..<1024: "\(bytes) B"
        case ..<(1024 * 1024): String(format: "%.1f KiB", Double(bytes) / 1024)
        default: String(format: "%.1f MiB", Double(bytes) / (1024 * 1024))
        }
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).joined(separator: " ").trimmingCharacters(in: .whitespaces)
    }
}
