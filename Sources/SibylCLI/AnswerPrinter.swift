import Assistant
import Foundation
import Knowledge
import SibylApp
import SibylCore

/// Shows what asking did: the answer as it streams (or as JSON at the end), its sources, or the
/// plain "nothing in your documents" reply with the closest passages.
struct AnswerPrinter {
    /// How an answer ended, for exit codes.
    enum Outcome {
        case finished(Message)
        case failed(Message, AnswerFailure)
        case cancelled(Message)
        case declined
        case none
    }

    /// Print JSON once the answer is complete, instead of the text as it streams.
    var json = false
    /// Print the model, tokens and timings under the answer.
    var showFooter = true
    /// Written before the answer's first words (`sibyl › ` in chat).
    var prefix = ""

    /// Prints the result; Ctrl-C stops an answer being written.
    func print(_ result: AskResult) async -> Outcome {
        switch result.outcome {
        case .declined(let declined):
            if json {
                Terminal.print(Format.json(Wire.Answer(declined: declined, conversationID: result.conversation.id)))
            } else {
                Terminal.print(prefix + declined.reply.text)
                Self.printClosest(declined.closest)
            }
            return .declined
        case .answering(let turn):
            let (outcome, title) = await follow(turn)
            if json {
                Terminal.print(Format.json(Wire.Answer(conversationID: result.conversation.id, ending: turn.outcome, title: title)))
            } else if case .finished(let message) = outcome {
                Self.printSources(message.citations)
            }
            return outcome
        }
    }

    private func follow(_ turn: LiveTurn) async -> (Outcome, String?) {
        Interrupts.shared.onInterrupt { turn.cancel() }
        defer { Interrupts.shared.onInterrupt(nil) }
        let stream = !json
        var outcome = Outcome.none
        var title: String?
        var wroteText = false
        for await event in turn.events() {
            switch event {
            case .started, .usage:
                break
            case .historyTrimmed(let dropped):
                if stream, showFooter {
                    Terminal.error(Terminal.dim("(\(dropped) older message\(dropped == 1 ? "" : "s") left out to fit the model's context)", stderr: true))
                }
            case .delta(let text):
                if stream {
                    if !wroteText { Terminal.write(prefix) }
                    Terminal.write(text)
                    wroteText = true
                }
            case .finished(let message):
                outcome = .finished(message)
                if stream {
                    if wroteText { Terminal.write("\n") }
                    if showFooter { Terminal.error(Terminal.dim(Format.answerFooter(model: message.model, usage: message.usage, timings: message.timings), stderr: true)) }
                }
            case .failed(let message, let error):
                outcome = .failed(message, error)
                if stream, wroteText { Terminal.write("\n") }
                Terminal.error(Terminal.red("error:", stderr: true) + " " + error.text)
                if let remedy = error.remedy, remedy != .retry { Terminal.error(Terminal.dim("hint: run ", stderr: true) + remedy.command) }
                if !message.text.isEmpty {
                    Terminal.error(Terminal.dim("The partial answer is saved; /retry (or `sibyl ask --retry -c`) asks again.", stderr: true))
                }
            case .cancelled(let message):
                outcome = .cancelled(message)
                if stream, wroteText { Terminal.write("\n") }
                Terminal.error(Terminal.yellow("(stopped; the partial answer is saved)", stderr: true))
            case .titled(let text):
                title = text
            case .toolCalled(let use):
                if stream {
                    if wroteText { Terminal.write("\n") }
                    wroteText = false
                    Terminal.error(Terminal.dim("(calling \(Self.describe(use)))", stderr: true))
                }
            case .toolAnswered(let citation):
                if stream, citation.tool?.isError == true {
                    Terminal.error(Terminal.yellow("(the tool failed: \(Format.excerpt(citation.quote, length: 160)))", stderr: true))
                }
            }
        }
        return (outcome, title)
    }

    /// A source as the list shows it: `[2] Handbook — page 3`, `[3] tool weather › forecast {…}`,
    /// or `[4] from your memory: The user is vegetarian.`.
    static func sourceLine(_ citation: Citation) -> String {
        if citation.memory != nil { return "[\(citation.number)] from your memory: \(citation.quote)" }
        let location = citation.location.isEmpty ? "" : " — \(citation.location)"
        let source = citation.tool.map { "tool " + describe($0) + ($0.isError ? " (failed)" : "") } ?? citation.documentTitle
        return "[\(citation.number)] \(source)\(location)"
    }

    /// A tool call in words: `weather › forecast {"city": "Oslo"}`.
    static func describe(_ use: ToolUse) -> String {
        "\(use.title) \(Format.excerpt(use.arguments, length: 120))"
    }

    /// Prints the closest passages with their scores.
    static func printClosest(_ closest: [SearchResult]) {
        guard !closest.isEmpty else { return }
        Terminal.error(Terminal.dim("Closest passages:", stderr: true))
        for result in closest {
            let cosine = result.vectorScore.map { String(format: "cosine %.3f", $0) } ?? "no vector match"
            let location = result.chunk.location.isEmpty ? "" : ", \(result.chunk.location)"
            Terminal.error(Terminal.dim("  \(cosine) — \(result.document.displayName)\(location): \(Format.excerpt(result.chunk.text, length: 100))", stderr: true))
        }
    }

    /// Prints the sources an answer cites.
    static func printSources(_ citations: [Citation]) {
        guard !citations.isEmpty else { return }
        Terminal.print(Terminal.bold("\nSources:"))
        for citation in citations {
            Terminal.print(sourceLine(citation))
            // A remembered fact is its own quote.
            if citation.memory == nil { Terminal.print(Terminal.dim("    “\(Format.excerpt(citation.quote, length: 160))”")) }
        }
    }
}
