import ArgumentParser
import Assistant
import Foundation
import Knowledge
import SibylApp
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

    @Option(help: "Chat model to use instead of the configured one (local engines: default or fast).")
    var model: String?

    @Option(help: "Sampling temperature (0–2).")
    var temperature: Double?

    @Option(name: .customLong("max-tokens"), help: "Longest answer, in tokens.")
    var maxTokens: Int?

    /// Which conversation the options name.
    var choice: ConversationChoice {
        let new = NewConversation(persona: persona, mode: translateTo.map { .translator(target: $0) } ?? .chat, source: .cli)
        if let conversation { return .reference(conversation) }
        return continueLatest ? .latestOrNew(new) : .new(new)
    }

    var turnOptions: TurnOptions {
        get throws { try TurnOptions(model: model, sampling: Sampling(temperature: temperature, maxTokens: maxTokens)) }
    }

    func validate() throws {
        do { _ = try turnOptions } catch { throw ValidationError(error.localizedDescription) }
    }
}

/// Options that ground answers in the user's documents.
struct DocumentOptions: ParsableArguments {
    @Flag(help: "Answer from your documents (see `sibyl docs`), with numbered citations.")
    var docs = false

    @Option(name: .customLong("collection"), help: "With --docs: only this collection (default: all).")
    var collection: String?

    @Option(name: .customLong("search-mode"), help: "With --docs: hybrid (default), vector or lexical.")
    var searchMode: SearchMode = .hybrid

    var scope: DocumentScope? {
        docs || collection != nil ? DocumentScope(collection: collection, mode: searchMode) : nil
    }
}

/// `sibyl ask`: one question, one answer.
struct Ask: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Ask one question and print the answer as it is written.",
        discussion: """
        The question comes from the arguments, or from standard input when there are none (or it is "-"), \
        or from the microphone with --voice. Each question starts a new conversation unless --continue or \
        --conversation is given; everything is saved (see `sibyl conversations`).
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ConversationOptions
    @OptionGroup var documents: DocumentOptions
    @OptionGroup var voice: VoiceOptions

    @Argument(help: "The question.")
    var question: [String] = []

    @Flag(help: "Print the answer, usage and timings as JSON once the answer is complete.")
    var json = false

    @Option(name: .customLong("image"), help: "Attach an image file (for vision-capable models). Repeatable.")
    var images: [String] = []

    @Flag(help: "Ask the conversation's last question again, replacing its answer (with -c or --conversation).")
    var retry = false

    func run() async throws {
        try await global.withRuntime { runtime in
            let result: AskResult
            var heard: VoiceConsole.Heard?
            if retry {
                let conversation = try await runtime.conversations.conversation(for: options.choice)
                result = try await runtime.conversations.retry(in: conversation.id, documents: documents.scope, options: try options.turnOptions)
            } else if voice.voice {
                heard = try await VoiceConsole(runtime: runtime, options: voice).listen(
                    request: AskRequest("", conversation: options.choice, documents: documents.scope, options: try options.turnOptions)
                )
                guard let heard else { throw ExitCode.failure }
                result = heard.turn.ask
            } else {
                let request = AskRequest(try questionText(), attachments: try images.map(Attachments.image(at:)), conversation: options.choice, documents: documents.scope, options: try options.turnOptions)
                result = try await runtime.conversations.ask(request)
            }
            let printer = AnswerPrinter(json: json)
            let outcome = if let heard {
                await VoiceConsole(runtime: runtime, options: voice).answer(heard, printer: printer, speak: voice.speak).outcome
            } else {
                await printer.print(result)
            }
            switch outcome {
            case .finished, .declined: return
            case .cancelled: throw ExitCode(130)
            case .failed, .none: throw ExitCode.failure
            }
        }
    }

    private func questionText() throws -> String {
        var text = question.joined(separator: " ")
        if text.isEmpty || text == "-" {
            guard !Terminal.stdinIsTerminal || text == "-" else {
                throw ValidationError("Give a question, e.g. sibyl ask \"What is the capital of France?\", or pipe one in.")
            }
            text = Terminal.readAllInput()
        }
        text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty || !images.isEmpty else { throw ValidationError("The question is empty.") }
        return text
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
