import Assistant
import Foundation
import SibylCore

/// Prints an answer as it streams, and reports how it ended.
struct TurnRenderer {
    /// How an answer ended, for exit codes and JSON.
    enum Outcome {
        case finished(Message)
        case failed(Message, String)
        case cancelled(Message)
        case none
    }

    /// Print deltas as they come (false for `--json`, which prints once at the end).
    var streamText = true
    /// Print model, tokens and timings after the answer.
    var showFooter = true

    /// Consumes the turn's events; Ctrl-C cancels the answer while this runs.
    func render(_ turn: AssistantTurn) async -> (outcome: Outcome, title: String?) {
        Interrupts.shared.onInterrupt { turn.cancel() }
        defer { Interrupts.shared.onInterrupt(nil) }
        var outcome = Outcome.none
        var title: String?
        var wroteText = false
        for await event in turn.events {
            switch event {
            case .started:
                break
            case .historyTrimmed(let dropped):
                if showFooter {
                    Terminal.error(Terminal.dim("(\(dropped) older message\(dropped == 1 ? "" : "s") left out to fit the model's context)", stderr: true))
                }
            case .delta(let text):
                if streamText {
                    Terminal.write(text)
                    wroteText = true
                }
            case .usage:
                break
            case .finished(let message):
                outcome = .finished(message)
                if streamText {
                    if wroteText { Terminal.write("\n") }
                    if showFooter {
                        Terminal.error(Terminal.dim(Format.answerFooter(model: message.model, usage: message.usage, timings: message.timings), stderr: true))
                    }
                }
            case .failed(let message, let error):
                outcome = .failed(message, error)
                if streamText, wroteText { Terminal.write("\n") }
                Terminal.error(Terminal.red("error:", stderr: true) + " " + error)
                if !message.text.isEmpty {
                    Terminal.error(Terminal.dim("The partial answer is saved; /retry (or `sibyl ask --retry -c`) asks again.", stderr: true))
                }
            case .cancelled(let message):
                outcome = .cancelled(message)
                if streamText, wroteText { Terminal.write("\n") }
                Terminal.error(Terminal.yellow("(stopped; the partial answer is saved)", stderr: true))
            case .titled(let text):
                title = text
            }
        }
        return (outcome, title)
    }
}
