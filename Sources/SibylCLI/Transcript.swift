import Foundation
import SibylCore

/// Shows stored messages in the terminal.
enum Transcript {
    static func render(_ message: Message) -> String {
        let who: String
        switch message.role {
        case .user: who = Terminal.bold(Terminal.green("you"))
        case .assistant: who = Terminal.bold(Terminal.cyan("sibyl"))
        case .system: who = Terminal.bold("system")
        }
        var header = "\(who) \(Terminal.dim(Format.date(message.createdAt)))"
        switch message.status {
        case .failed: header += " " + Terminal.red("[failed: \(message.error ?? "unknown error")]")
        case .cancelled: header += " " + Terminal.yellow("[stopped]")
        case .pending: header += " " + Terminal.yellow("[unfinished]")
        case .complete: break
        }
        var lines = [header, message.text.isEmpty ? Terminal.dim("(no text)") : message.text]
        for attachment in message.attachments {
            lines.append(Terminal.dim("[\(attachment.kind.rawValue): \(attachment.filename ?? attachment.mimeType), \(attachment.data.count) bytes]"))
        }
        for citation in message.citations {
            lines.append(Terminal.dim(AnswerPrinter.sourceLine(citation)))
        }
        if message.role == .assistant, message.status == .complete {
            let footer = Format.answerFooter(model: message.model, usage: message.usage, timings: message.timings)
            if !footer.isEmpty { lines.append(Terminal.dim(footer)) }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
