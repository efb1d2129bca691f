import Foundation
import OpenAIClient
import SibylCore
import Storage
import Synchronization

/// Runs conversations: keeps history, fits it to the model's context, streams answers and saves everything.
///
/// Every answer is saved as it grows, so a failure or a cancel leaves what arrived, marked as such;
/// `retry` rewrites that same message in place, so nothing is duplicated.
public final class ConversationEngine: Sendable {
    public let store: ConversationStore
    public let personas: PersonaCatalog
    let chatModel: any ChatModel
    let options: EngineOptions
    let counter: any TokenCounter
    private let busy = Mutex<Set<UUID>>([])

    public init(store: ConversationStore, chatModel: any ChatModel, options: EngineOptions, counter: any TokenCounter = EstimatingTokenCounter()) {
        self.store = store
        self.personas = PersonaCatalog(store: store)
        self.chatModel = chatModel
        self.options = options
        self.counter = counter
    }

    /// The chat model answers use unless a persona names another.
    public var modelName: String { options.model }

    /// Starts a conversation; the persona must exist.
    public func startConversation(persona: String = "assistant", mode: ConversationMode = .chat, source: ConversationSource) throws -> Conversation {
        let resolved = try personas.persona(named: persona)
        let conversation = Conversation(persona: resolved.name, mode: mode, source: source)
        try store.create(conversation)
        return conversation
    }

    /// Asks a question in a conversation; the answer streams through the returned turn's events.
    /// With `grounding`, the answer must rest on the given sources, and keeps them as its citations.
    public func send(_ text: String, attachments: [Attachment] = [], in conversationID: UUID, grounding: Grounding? = nil) throws -> AssistantTurn {
        let conversation = try loadConversation(conversationID)
        try claim(conversationID)
        do {
            let history = try settledHistory(conversationID)
            let question = Message(conversationID: conversationID, role: .user, text: text, attachments: attachments)
            let plan = try plan(for: conversation, history: history.filter(\.isContext) + [question], grounding: grounding)
            try store.append(question)
            let answer = Message(conversationID: conversationID, role: .assistant, text: "", model: plan.request.model, status: .pending, citations: grounding?.citations ?? [])
            try store.append(answer)
            return launch(plan, conversation: conversation, question: question, answer: answer)
        } catch {
            release(conversationID)
            throw error
        }
    }

    /// Asks the last question again, replacing its failed, cancelled (or unwanted) answer.
    public func retry(in conversationID: UUID, grounding: Grounding? = nil) throws -> AssistantTurn {
        let conversation = try loadConversation(conversationID)
        try claim(conversationID)
        do {
            let history = try settledHistory(conversationID)
            guard let questionIndex = history.lastIndex(where: { $0.role == .user }) else { throw AssistantError.nothingToRetry }
            let question = history[questionIndex]
            let earlier = history[..<questionIndex].filter(\.isContext)
            let plan = try plan(for: conversation, history: earlier + [question], grounding: grounding)
            let answers = history[(questionIndex + 1)...]
            var answer: Message
            if var previous = answers.last {
                for extra in answers.dropLast() { try store.deleteMessage(id: extra.id) }
                previous.text = ""
                previous.status = .pending
                previous.error = nil
                previous.usage = nil
                previous.timings = nil
                previous.model = plan.request.model
                previous.citations = grounding?.citations ?? []
                try store.update(previous)
                answer = previous
            } else {
                answer = Message(conversationID: conversationID, role: .assistant, text: "", model: plan.request.model, status: .pending, citations: grounding?.citations ?? [])
                try store.append(answer)
            }
            return launch(plan, conversation: conversation, question: question, answer: answer)
        } catch {
            release(conversationID)
            throw error
        }
    }

    /// The system prompt and model settings a conversation's answers use.
    public func persona(for conversation: Conversation) throws -> Persona {
        var persona = try personas.persona(named: conversation.persona)
        if case .translator(let target) = conversation.mode {
            persona.systemPrompt = PersonaCatalog.translatorPrompt(target: target)
            persona.temperature = persona.temperature ?? 0.2
        }
        return persona
    }

    // MARK: Planning

    struct Plan: Sendable {
        var request: ChatRequest
        var droppedMessages: Int
    }

    private func plan(for conversation: Conversation, history: [Message], grounding: Grounding?) throws -> Plan {
        var persona = try persona(for: conversation)
        if let grounding { persona.systemPrompt += "\n\n" + grounding.instructions }
        let model = persona.model ?? options.model
        var chatHistory = history.map(\.chatMessage)
        // A translator translates each message on its own: earlier turns would only invite the
        // model to answer them or to continue a dialogue.
        if case .translator = conversation.mode, let last = chatHistory.last { chatHistory = [last] }
        let window = try HistoryWindow.fit(
            system: .system(persona.systemPrompt),
            history: chatHistory,
            budget: options.promptBudget(for: model),
            counter: counter
        )
        let request = ChatRequest(
            model: model,
            messages: window.messages,
            temperature: persona.temperature ?? options.temperature,
            maxTokens: options.maxTokens
        )
        return Plan(request: request, droppedMessages: window.droppedMessages)
    }

    // MARK: Running

    private func launch(_ plan: Plan, conversation: Conversation, question: Message, answer: Message) -> AssistantTurn {
        let (events, continuation) = AsyncStream<AssistantEvent>.makeStream()
        let turn = AssistantTurn(conversationID: conversation.id, events: events)
        let task = Task {
            continuation.yield(.started(question: question, answerID: answer.id))
            if plan.droppedMessages > 0 { continuation.yield(.historyTrimmed(droppedMessages: plan.droppedMessages)) }
            let outcome = await self.generate(plan.request, answer: answer, continuation: continuation)
            if case .finished = outcome, conversation.title == nil, !Task.isCancelled {
                if let title = await self.makeTitle(conversation: conversation, question: question.text) {
                    continuation.yield(.titled(title))
                }
            }
            // Free the conversation before the stream ends: a consumer that sends its next message
            // as soon as this turn's events stop must not find the conversation still busy.
            self.release(conversation.id)
            continuation.finish()
        }
        turn.attach(task)
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return turn
    }

    private func generate(_ request: ChatRequest, answer: Message, continuation: AsyncStream<AssistantEvent>.Continuation) async -> AssistantEvent {
        var message = answer
        var lastSave = ContinuousClock.now
        var completion: ChatCompletion?
        do {
            for try await event in chatModel.stream(request) {
                switch event {
                case .delta(let text):
                    message.text += text
                    continuation.yield(.delta(text))
                    if ContinuousClock.now - lastSave >= options.saveInterval {
                        try? store.update(message)
                        lastSave = .now
                    }
                case .usage(let usage):
                    message.usage = usage
                    continuation.yield(.usage(usage))
                case .finished(let finished):
                    completion = finished
                }
            }
            guard let completion, !Task.isCancelled else { return finish(&message, as: .cancelled, continuation: continuation) }
            message.text = completion.text
            message.model = completion.model
            message.usage = completion.usage ?? message.usage
            message.timings = completion.timings
            message.citations = Grounding.cited(in: completion.text, from: message.citations)
            return finish(&message, as: .complete, continuation: continuation)
        } catch {
            if Task.isCancelled || Self.isCancellation(error) {
                return finish(&message, as: .cancelled, continuation: continuation)
            }
            if case .streamInterrupted(let partial, _)? = error as? OpenAIError, partial.count > message.text.count {
                message.text = partial
            }
            message.error = Self.describe(error)
            return finish(&message, as: .failed, continuation: continuation)
        }
    }

    private func finish(_ message: inout Message, as status: MessageStatus, continuation: AsyncStream<AssistantEvent>.Continuation) -> AssistantEvent {
        message.status = status
        let event: AssistantEvent
        do {
            try store.update(message)
            switch status {
            case .complete: event = .finished(message)
            case .cancelled: event = .cancelled(message)
            default: event = .failed(message, error: message.error ?? "unknown error")
            }
        } catch {
            message.status = .failed
            message.error = "the answer could not be saved: \(error.localizedDescription)"
            event = .failed(message, error: message.error!)
        }
        continuation.yield(event)
        return event
    }

    private func makeTitle(conversation: Conversation, question: String) async -> String? {
        var title = TitleMaker.firstWords(of: question)
        if options.titles == .model, case .chat = conversation.mode,
           let generated = await TitleMaker.askModel(chatModel, modelName: options.model, question: question) {
            title = generated
        }
        do {
            try store.setTitle(title, for: conversation.id)
            return title
        } catch {
            return nil
        }
    }

    /// Saves a question and an answer that needed no model (such as "nothing in your documents"),
    /// so the exchange stays in the conversation.
    @discardableResult
    public func record(question text: String, answer: String, in conversationID: UUID) throws -> Message {
        _ = try loadConversation(conversationID)
        try claim(conversationID)
        defer { release(conversationID) }
        try store.append(Message(conversationID: conversationID, role: .user, text: text))
        let reply = Message(conversationID: conversationID, role: .assistant, text: answer, status: .complete)
        try store.append(reply)
        return reply
    }

    // MARK: Bookkeeping

    private func loadConversation(_ id: UUID) throws -> Conversation {
        guard let conversation = try store.conversation(id: id) else { throw AssistantError.conversationNotFound(id) }
        return conversation
    }

    /// The conversation's messages, with answers left `pending` by a process that died marked failed.
    private func settledHistory(_ id: UUID) throws -> [Message] {
        var messages = try store.messages(in: id)
        for index in messages.indices where messages[index].status == .pending {
            messages[index].status = .failed
            messages[index].error = "interrupted: Sibyl stopped before the answer was complete"
            try store.update(messages[index])
        }
        return messages
    }

    private func claim(_ id: UUID) throws {
        let claimed = busy.withLock { $0.insert(id).inserted }
        guard claimed else { throw AssistantError.busy }
    }

    private func release(_ id: UUID) {
        _ = busy.withLock { $0.remove(id) }
    }

    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if case .cancelled? = error as? OpenAIError { return true }
        return false
    }

    /// An error in words, with what to do next when known; secrets redacted.
    public static func describe(_ error: any Error) -> String {
        var text = error.localizedDescription
        if let suggestion = (error as? LocalizedError)?.recoverySuggestion { text += " \(suggestion)" }
        return Redaction.redact(text)
    }
}

extension Message {
    /// Whether the message belongs in the history a model sees: questions, and answers that completed.
    var isContext: Bool {
        role != .assistant || status == .complete
    }
}
