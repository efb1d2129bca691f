import ArgumentParser
import Assistant
import Foundation
import SibylCore

/// `sibyl chat`: an interactive conversation.
struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat interactively; answers stream as they are written and everything is saved.",
        discussion: """
        Commands: /new, /persona NAME, /mode translator [LANG], /mode chat, /docs on|off, /history, /retry, /help, /exit. \
        Ctrl-C stops the answer being written (not the chat); Ctrl-D or /exit leaves.
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ConversationOptions

    func run() async throws {
        try await reportingErrors {
            let runtime = try global.runtime()
            let engine = try await runtime.engine(model: options.model, temperature: options.temperature, maxTokens: options.maxTokens)
            var session = ChatSession(runtime: runtime, engine: engine, conversation: try options.resolve(with: engine, runtime: runtime, source: .cli))
            session.printBanner(model: engine.modelName)
            try await session.loop()
        }
    }
}

/// The state of an interactive chat: which conversation, and what the user typed.
struct ChatSession {
    let runtime: SibylRuntime
    let engine: ConversationEngine
    var conversation: Conversation
    /// Set while answers come from the documents (`/docs on`).
    var docs: DocsContext?

    private var userPrompt: String { Terminal.stdoutStyled ? Terminal.bold(Terminal.green("you › ")) : "you › " }

    func printBanner(model: String) {
        let mode = conversation.mode == .chat ? "persona \(conversation.persona)" : conversation.mode.description
        Terminal.print(Terminal.dim("Sibyl chat · \(model) · \(mode) · conversation \(Format.shortID(conversation.id))"))
        Terminal.print(Terminal.dim("/help lists commands · Ctrl-C stops an answer · /exit or Ctrl-D leaves"))
        let earlier = (try? runtime.store.messages(in: conversation.id)) ?? []
        if !earlier.isEmpty {
            Terminal.print(Terminal.dim("(continuing: \(earlier.count) earlier messages; /history shows them)"))
        }
    }

    mutating func loop() async throws {
        let prompt = userPrompt
        let lines = Terminal.lines { prompt }
        // At the prompt, Ctrl-C explains how to leave instead of killing the process.
        let idle: @Sendable () -> Void = { Terminal.error(Terminal.dim("\n(Ctrl-C stops answers; type /exit or press Ctrl-D to leave)", stderr: true)) }
        Interrupts.shared.onInterrupt(idle)
        Terminal.requestLine()
        for await line in lines {
            let text = line.trimmingCharacters(in: .whitespacesAndNewlines)
            if !text.isEmpty {
                do {
                    if text.hasPrefix("/") {
                        if try await command(text) == .exit { return }
                    } else {
                        try await ask(text)
                    }
                } catch {
                    Terminal.error(Terminal.red("error:", stderr: true) + " " + Redaction.redact(error.localizedDescription))
                    if let hint = (error as? LocalizedError)?.recoverySuggestion { Terminal.error(Terminal.dim("hint: \(hint)", stderr: true)) }
                }
            }
            Interrupts.shared.onInterrupt(idle)
            Terminal.requestLine()
        }
        Terminal.print()
    }

    /// Asks a question, from the documents when /docs is on.
    private func ask(_ text: String) async throws {
        guard let docs else {
            try await answer(engine.send(text, in: conversation.id))
            return
        }
        switch try await docs.ground(text) {
        case .grounded(let grounding, _):
            try await answer(engine.send(text, in: conversation.id, grounding: grounding))
        case .nothingRelevant(let closest, let threshold):
            let reply = DocsContext.nothingRelevantAnswer(closest: closest, threshold: threshold)
            try engine.record(question: text, answer: reply, in: conversation.id)
            Terminal.print(reply)
            DocsContext.printClosest(closest)
        }
    }

    private func answer(_ turn: AssistantTurn) async {
        if Terminal.stdoutStyled { Terminal.write(Terminal.bold(Terminal.cyan("sibyl › "))) }
        let (outcome, _) = await TurnRenderer().render(turn)
        if case .finished(let message) = outcome { DocsContext.printSources(message.citations) }
    }

    enum CommandResult { case next, exit }

    private mutating func command(_ line: String) async throws -> CommandResult {
        let words = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        let argument = words.dropFirst().joined(separator: " ")
        switch words[0].lowercased() {
        case "/exit", "/quit", "/q":
            return .exit
        case "/help", "/?":
            Terminal.print("""
            /new                    start a new conversation (same persona and mode)
            /persona [NAME]         show or switch the persona
            /mode translator [LANG] translate everything you type into LANG (default English)
            /mode chat              back to normal chat
            /docs on [COLLECTION]   answer from your documents, with citations (/docs off to stop)
            /history                show this conversation
            /retry                  ask the last question again, replacing its answer
            /exit                   leave (Ctrl-D works too)
            """)
        case "/new":
            conversation = try engine.startConversation(persona: conversation.persona, mode: conversation.mode, source: .cli)
            Terminal.print(Terminal.dim("New conversation \(Format.shortID(conversation.id))."))
        case "/persona":
            if argument.isEmpty {
                let names = try engine.personas.all().map { $0.name == conversation.persona ? Terminal.bold("\($0.name)*") : $0.name }
                Terminal.print("Persona: \(conversation.persona). Available: \(names.joined(separator: ", "))")
            } else {
                let persona = try engine.personas.persona(named: argument)
                try runtime.store.setPersona(persona.name, for: conversation.id)
                conversation.persona = persona.name
                Terminal.print(Terminal.dim("Persona is now \(persona.name)."))
            }
        case "/mode":
            let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
            switch parts.first?.lowercased() {
            case "translator", "translate":
                let target = parts.count > 1 ? parts[1] : "English"
                conversation.mode = .translator(target: target)
            case "chat":
                conversation.mode = .chat
            default:
                Terminal.print("Mode: \(conversation.mode). Use /mode translator [LANG] or /mode chat.")
                return .next
            }
            try runtime.store.setMode(conversation.mode, for: conversation.id)
            Terminal.print(Terminal.dim("Mode is now \(conversation.mode)."))
        case "/docs":
            let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
            switch parts.first?.lowercased() {
            case "on":
                docs = try DocsContext(runtime: runtime, collection: parts.count > 1 ? parts[1] : nil, mode: .hybrid)
                Terminal.print(Terminal.dim("Answering from your documents\(parts.count > 1 ? " in '\(parts[1])'" : ""), with citations."))
            case "off":
                docs = nil
                Terminal.print(Terminal.dim("Answering without your documents."))
            default:
                Terminal.print("Documents are \(docs == nil ? "off" : "on"). Use /docs on [COLLECTION] or /docs off.")
            }
        case "/history":
            let messages = try runtime.store.messages(in: conversation.id)
            if messages.isEmpty { Terminal.print(Terminal.dim("(no messages yet)")) }
            for message in messages { Terminal.print(Transcript.render(message)) }
        case "/retry":
            var grounding: Grounding?
            if let docs, let question = try runtime.store.messages(in: conversation.id).last(where: { $0.role == .user }),
               case .grounded(let found, _) = try await docs.ground(question.text) {
                grounding = found
            }
            try await answer(engine.retry(in: conversation.id, grounding: grounding))
        default:
            Terminal.print("Unknown command \(words[0]). /help lists the commands.")
        }
        return .next
    }
}
