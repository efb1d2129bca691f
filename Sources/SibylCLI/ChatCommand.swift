import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylCore

/// `sibyl chat`: an interactive conversation.
struct Chat: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Chat interactively; answers stream as they are written and everything is saved.",
        discussion: """
        Commands: /new, /persona NAME, /mode translator [LANG], /mode chat, /docs on|off, /history, /retry, /voice, /help, /exit. \
        Ctrl-C stops the answer being written (not the chat); Ctrl-D or /exit leaves. With --voice, each question is \
        spoken: recording stops by itself when you fall silent, and the answer is spoken back.
        """
    )

    @OptionGroup var global: GlobalOptions
    @OptionGroup var options: ConversationOptions
    @OptionGroup var documents: DocumentOptions
    @OptionGroup var voice: VoiceOptions

    func run() async throws {
        try await global.withRuntime { runtime in
            let conversation = try await runtime.conversations.conversation(for: options.choice)
            var session = ChatSession(runtime: runtime, conversation: conversation, turnOptions: try options.turnOptions, documents: documents.scope, voice: voice)
            try await session.printBanner()
            if voice.voice {
                await session.voiceLoop()
            } else {
                try await session.loop()
            }
        }
    }
}

/// The state of an interactive chat: which conversation, and what the user typed.
struct ChatSession {
    let runtime: SibylRuntime
    var conversation: Conversation
    let turnOptions: TurnOptions
    /// Set while answers come from the documents (`/docs on`).
    var documents: DocumentScope?
    let voice: VoiceOptions

    private var userPrompt: String { Terminal.stdoutStyled ? Terminal.bold(Terminal.green("you › ")) : "you › " }
    private var answerPrefix: String { Terminal.stdoutStyled ? Terminal.bold(Terminal.cyan("sibyl › ")) : "" }

    func printBanner() async throws {
        let model = (try? await runtime.conversations.currentModel(options: turnOptions)) ?? "the chat model"
        let mode = conversation.mode == .chat ? "persona \(conversation.persona)" : conversation.mode.description
        Terminal.print(Terminal.dim("Sibyl chat · \(model) · \(mode) · conversation \(Format.shortID(conversation.id))"))
        Terminal.print(Terminal.dim(voice.voice ? "Speak after the beep of each turn; Ctrl-C stops · Ctrl-D leaves" : "/help lists commands · Ctrl-C stops an answer · /exit or Ctrl-D leaves"))
        let earlier = await (try? runtime.conversations.messages(in: conversation.id)) ?? []
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
                    Terminal.report(error)
                }
            }
            Interrupts.shared.onInterrupt(idle)
            Terminal.requestLine()
        }
        Terminal.print()
    }

    /// Spoken turns until Ctrl-D (end of input) or nobody speaks twice in a row.
    func voiceLoop() async {
        let console = VoiceConsole(runtime: runtime, options: voice)
        var silentTurns = 0
        // The next question began while the last answer was spoken.
        var interruption: VoiceConsole.Interruption?
        while silentTurns < 2 {
            do {
                let request = AskRequest("", conversation: .id(conversation.id), documents: documents, options: turnOptions)
                guard let heard = try await console.listen(request: request, after: interruption) else {
                    silentTurns += 1
                    interruption = nil
                    continue
                }
                silentTurns = 0
                interruption = await console.answer(heard, printer: printer, speak: voice.speak).interruption
            } catch {
                Terminal.report(error)
                return
            }
        }
        Terminal.print(Terminal.dim("(nobody spoke twice in a row: leaving)"))
    }

    private var printer: AnswerPrinter {
        AnswerPrinter(prefix: answerPrefix)
    }

    /// Asks a question, from the documents when /docs is on.
    private func ask(_ text: String) async throws {
        let result = try await runtime.conversations.ask(AskRequest(text, conversation: .id(conversation.id), documents: documents, options: turnOptions))
        _ = await printer.print(result)
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
            /retry                  ask the last question again, replacing its answer (from the documents when /docs is on)
            /voice                  ask one question by voice
            /exit                   leave (Ctrl-D works too)
            """)
        case "/new":
            conversation = try await runtime.conversations.start(NewConversation(persona: conversation.persona, mode: conversation.mode, source: .cli))
            Terminal.print(Terminal.dim("New conversation \(Format.shortID(conversation.id))."))
        case "/persona":
            if argument.isEmpty {
                let names = try await runtime.conversations.personas().map { $0.name == conversation.persona ? Terminal.bold("\($0.name)*") : $0.name }
                Terminal.print("Persona: \(conversation.persona). Available: \(names.joined(separator: ", "))")
            } else {
                conversation = try await runtime.conversations.update(conversation.id, persona: argument)
                Terminal.print(Terminal.dim("Persona is now \(conversation.persona)."))
            }
        case "/mode":
            let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
            let mode: ConversationMode
            switch parts.first?.lowercased() {
            case "translator", "translate": mode = .translator(target: parts.count > 1 ? parts[1] : "English")
            case "chat": mode = .chat
            default:
                Terminal.print("Mode: \(conversation.mode). Use /mode translator [LANG] or /mode chat.")
                return .next
            }
            conversation = try await runtime.conversations.update(conversation.id, mode: mode)
            Terminal.print(Terminal.dim("Mode is now \(conversation.mode)."))
        case "/docs":
            let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
            switch parts.first?.lowercased() {
            case "on":
                documents = DocumentScope(collection: parts.count > 1 ? parts[1] : nil)
                Terminal.print(Terminal.dim("Answering from your documents\(parts.count > 1 ? " in '\(parts[1])'" : ""), with citations."))
            case "off":
                documents = nil
                Terminal.print(Terminal.dim("Answering without your documents."))
            default:
                Terminal.print("Documents are \(documents == nil ? "off" : "on"). Use /docs on [COLLECTION] or /docs off.")
            }
        case "/history":
            let messages = try await runtime.conversations.messages(in: conversation.id)
            if messages.isEmpty { Terminal.print(Terminal.dim("(no messages yet)")) }
            for message in messages { Terminal.print(Transcript.render(message)) }
        case "/retry":
            _ = await printer.print(try await runtime.conversations.retry(in: conversation.id, documents: documents, options: turnOptions))
        case "/voice":
            let console = VoiceConsole(runtime: runtime, options: voice)
            let request = AskRequest("", conversation: .id(conversation.id), documents: documents, options: turnOptions)
            if let heard = try await console.listen(request: request) {
                _ = await console.answer(heard, printer: printer, speak: voice.speak)
            }
        default:
            Terminal.print("Unknown command \(words[0]). /help lists the commands.")
        }
        return .next
    }
}
