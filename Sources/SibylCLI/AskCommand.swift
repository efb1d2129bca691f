import ArgumentParser
import Assistant
import Foundation
import Knowledge
import SibylCore

/// Options that pick or start a conversation.
struct ConversationOptions: ParsableArguments {
    @Option(name: .long, help: "Continue this conversation (its id or the first characters of it).")
    var conversation: String?

    @Flag(name: [.customShort("c"), .customLong("continue")], help: "Continue the most recent conversation started from the command line.")
    var continueLatest = false

    @Option(name: [.short, .long], help: "Persona for a new conversation (see `sibyl personas list`).")
    var persona: String?

    @Option(name: .customLong("translate-to"), help: "Start in translator mode: translate everything into this language.")
    var translateTo: String?

    @Option(help: "Chat model to use instead of the configured one.")
    var model: String?

    @Option(help: "Sampling temperature (0–2).")
    var temperature: Double?

    @Option(name: .customLong("max-tokens"), help: "Longest answer, in tokens.")
    var maxTokens: Int?

    /// The conversation to use: an existing one, or a new one.
    func resolve(with engine: ConversationEngine, runtime: SibylRuntime, source: ConversationSource) throws -> Conversation {
        if let conversation {
            return try runtime.store.conversation(idPrefix: conversation)
        }
        if continueLatest, let latest = try runtime.store.latestConversation(source: source) {
            return latest
        }
        let mode: ConversationMode = translateTo.map { .translator(target: $0) } ?? .chat
        return try engine.startConversation(persona: persona ?? runtime.defaultPersona, mode: mode, source: source)
    }
}

/// `sibyl ask`: one question, one answer.
struct Ask: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask one question and print the answer as it is written.",
        discussion: """
        The question comes from the arguments, or from standard input when there are none (or it is "-"). \
        Each question starts a new conversation unless --continue or --conversation is given; \
        everything is saved (see `sibyl conversations`).
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ConversationOptions

    @Argument(help: "The question.")
    var question: [String] = []

    @Flag(help: "Print the answer, usage and timings as JSON once the answer is complete.")
    var json = false

    @Option(name: .customLong("image"), help: "Attach an image file (for vision-capable models). Repeatable.")
    var images: [String] = []

    @Flag(help: "Ask the conversation's last question again, replacing its answer (with -c or --conversation).")
    var retry = false

    @Flag(help: "Answer from your documents (see `sibyl docs`), with numbered citations.")
    var docs = false

    @Option(name: .customLong("collection"), help: "With --docs: only this collection (default: all).")
    var docsCollection: String?

    @Option(name: .customLong("search-mode"), help: "With --docs: hybrid (default), vector or lexical.")
    var searchMode: SearchMode = .hybrid

    func run() async throws {
        try await reportingErrors {
            let runtime = try global.runtime()
            let text = try questionText()
            let engine = try await runtime.engine(model: options.model, temperature: options.temperature, maxTokens: options.maxTokens)
            let conversation = try options.resolve(with: engine, runtime: runtime, source: .cli)
            let attachments = try images.map(Attachments.image(at:))
            var grounding: Grounding?
            if docs || docsCollection != nil {
                let question = retry ? (try runtime.store.messages(in: conversation.id).last { $0.role == .user }?.text ?? "") : text
                let context = try DocsContext(runtime: runtime, collection: docsCollection, mode: searchMode)
                switch try await context.ground(question) {
                case .grounded(let found, _):
                    grounding = found
                case .nothingRelevant(let closest, let threshold):
                    let answer = DocsContext.nothingRelevantAnswer(closest: closest, threshold: threshold)
                    try engine.record(question: question, answer: answer, in: conversation.id)
                    try OperationLog.record(runtime, "ask.docs", message: "no relevant passage for: \(question.prefix(80))")
                    if json {
                        Terminal.print(Format.json([
                            "conversation_id": conversation.id.uuidString.lowercased(), "status": "no_relevant_sources", "answer": answer,
                            "threshold": threshold,
                            "closest": closest.map { ["document": $0.document.displayName, "cosine": $0.vectorScore ?? NSNull(), "text": $0.chunk.text] as [String: Any] },
                        ]))
                    } else {
                        Terminal.print(answer)
                        DocsContext.printClosest(closest)
                    }
                    return
                }
            }
            let turn = retry
                ? try engine.retry(in: conversation.id, grounding: grounding)
                : try engine.send(text, attachments: attachments, in: conversation.id, grounding: grounding)
            let renderer = TurnRenderer(streamText: !json, showFooter: !json)
            let (outcome, title) = await renderer.render(turn)
            if json {
                Terminal.print(Format.json(jsonReport(outcome, conversation: conversation, title: title)))
            } else if case .finished(let message) = outcome {
                DocsContext.printSources(message.citations)
            }
            if case .failed(_, let error) = outcome {
                try OperationLog.record(runtime, "ask", level: .error, message: error)
            }
            switch outcome {
            case .finished: return
            case .cancelled: throw ExitCode(130)
            case .failed, .none: throw ExitCode.failure
            }
        }
    }

    private func questionText() throws -> String {
        if retry { return "" }
        var text = question.joined(separator: " ")
        if text.isEmpty || text == "-" {
            guard !Terminal.stdinIsTerminal || text == "-" else {
                throw ValidationError("Give a question, e.g. sibyl ask \"What is the capital of France?\", or pipe one in.")
            }
            text = Terminal.readAllInput()
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw ValidationError("The question is empty.") }
        return text
    }

    private func jsonReport(_ outcome: TurnRenderer.Outcome, conversation: Conversation, title: String?) -> [String: Any] {
        var report: [String: Any] = ["conversation_id": conversation.id.uuidString.lowercased()]
        let message: Message?
        switch outcome {
        case .finished(let finished):
            message = finished
            report["status"] = "complete"
        case .failed(let failed, let error):
            message = failed
            report["status"] = "failed"
            report["error"] = error
        case .cancelled(let cancelled):
            message = cancelled
            report["status"] = "cancelled"
        case .none:
            message = nil
            report["status"] = "failed"
        }
        if let message {
            report["message_id"] = message.id.uuidString.lowercased()
            report["answer"] = message.text
            report["model"] = message.model ?? NSNull()
            if let usage = message.usage {
                report["usage"] = ["prompt_tokens": usage.promptTokens, "completion_tokens": usage.completionTokens, "total_tokens": usage.totalTokens]
            } else {
                report["usage"] = NSNull()
            }
            if let timings = message.timings {
                report["timings"] = ["time_to_first_token_ms": timings.timeToFirstTokenMilliseconds ?? NSNull(), "total_ms": timings.totalMilliseconds] as [String: Any]
            } else {
                report["timings"] = NSNull()
            }
        }
        if let message, !message.citations.isEmpty { report["citations"] = message.citations.map(DocsContext.json) }
        if let title { report["title"] = title }
        return report
    }
}

/// Reading attachments from files.
enum Attachments {
    static func image(at path: String) throws -> Attachment {
        let url = URL(fileURLWithPath: (path as NSString).expandingTildeInPath)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIError("Cannot read the image \(path).", hint: "Check the path and permissions.")
        }
        guard let mime = ImageSniffer.mimeType(of: data) else {
            throw CLIError("\(path) is not a PNG, JPEG, WebP or GIF image.")
        }
        return Attachment(kind: .image, mimeType: mime, filename: url.lastPathComponent, data: data)
    }
}
