public import Foundation
public import SibylCore
public import Storage
import Synchronization

/// Runs conversations: keeps history, fits it to the model's context, streams answers and saves everything.
///
/// Every answer is saved as it grows, so a failure or a cancel leaves what arrived, marked as such;
/// `retry` rewrites that same message in place, so nothing is duplicated. One engine serves a whole
/// process: it keeps the set of conversations with an answer under way, so two answers never race
/// in one conversation, and it asks its `ChatBackend` for the model of every answer anew.
public final class ConversationEngine: Sendable {
    public let store: any ConversationStorage
    public let personas: PersonaCatalog
    let backend: any ChatBackend
    let busy = Mutex<Set<UUID>>([])
    let busyChanges = Atomic<Int>(0)
    let drafts: DraftSaver

    /// An engine whose answers go wherever `backend` says at the time.
    public init(store: any ConversationStorage, backend: any ChatBackend) {
        self.store = store
        self.personas = PersonaCatalog(store: store)
        self.backend = backend
        self.drafts = DraftSaver(store: store)
    }

    /// An engine on one chat model with fixed options.
    public convenience init(store: any ConversationStorage, chatModel: any ChatModel, options: EngineOptions, counter: any TokenCounter = EstimatingTokenCounter()) {
        self.init(store: store, backend: FixedChatBackend(ChatSetup(model: chatModel, options: options, counter: counter)))
    }

    /// Starts a conversation; the persona must exist.
    public func startConversation(persona: String = "assistant", mode: ConversationMode = .chat, source: ConversationSource) async throws -> Conversation {
        let resolved = try await personas.persona(named: persona)
        let conversation = Conversation(persona: resolved.name, mode: mode, source: source)
        try await store.create(conversation)
        return conversation
    }

    /// Asks a question in a conversation; the answer streams through the returned turn's events.
    /// With `grounding`, the answer must rest on the given sources, and keeps them as its citations.
    public func send(
        _ text: String, attachments: [Attachment] = [], in conversationID: UUID, grounding: Grounding? = nil, options turn: TurnOptions = TurnOptions()
    ) async throws -> AssistantTurn {
        let conversation = try await loadConversation(conversationID)
        try claim(conversationID)
        do {
            let setup = try await backend.chat(for: turn)
            let (plan, question, answer) = try await prepareSend(text, attachments: attachments, in: conversation, grounding: grounding, setup: setup, turn: turn)
            return launch(plan, setup: setup, conversation: conversation, question: question, answer: answer)
        } catch {
            release(conversationID)
            throw error
        }
    }

    /// Saves the question and a pending answer: the database work of `send`.
    private func prepareSend(
        _ text: String, attachments: [Attachment], in conversation: Conversation, grounding: Grounding?, setup: ChatSetup, turn: TurnOptions
    ) async throws -> (Plan, Message, Message) {
        let history = try await settledHistory(conversation.id)
        let question = Message(conversationID: conversation.id, role: .user, text: text, attachments: attachments)
        let plan = try await plan(for: conversation, history: history.filter(\.isContext) + [question], grounding: grounding, setup: setup, turn: turn)
        try await store.append(question)
        let answer = Message(conversationID: conversation.id, role: .assistant, text: "", model: plan.request.model, status: .pending, citations: Self.citations(grounding, turn, conversation))
        try await store.append(answer)
        return (plan, question, answer)
    }

    /// Asks the last question again, replacing its failed, cancelled (or unwanted) answer.
    public func retry(in conversationID: UUID, grounding: Grounding? = nil, options turn: TurnOptions = TurnOptions()) async throws -> AssistantTurn {
        let conversation = try await loadConversation(conversationID)
        try claim(conversationID)
        do {
            let setup = try await backend.chat(for: turn)
            let (plan, question, answer) = try await prepareRetry(in: conversation, grounding: grounding, setup: setup, turn: turn)
            return launch(plan, setup: setup, conversation: conversation, question: question, answer: answer)
        } catch {
            release(conversationID)
            throw error
        }
    }

    /// Replaces the answers to the conversation's last question with one pending answer: the
    /// database work of `retry`.
    private func prepareRetry(in conversation: Conversation, grounding: Grounding?, setup: ChatSetup, turn: TurnOptions) async throws -> (Plan, Message, Message) {
        let conversationID = conversation.id
        let history = try await settledHistory(conversationID)
        guard let questionIndex = history.lastIndex(where: { $0.role == .user }) else { throw AssistantError.nothingToRetry }
        let question = history[questionIndex]
        let earlier = history[..<questionIndex].filter(\.isContext)
        let plan = try await plan(for: conversation, history: earlier + [question], grounding: grounding, setup: setup, turn: turn)
        let answers = history[(questionIndex + 1)...]
        var answer: Message
        if var previous = answers.last {
            for extra in answers.dropLast() { try await store.deleteMessage(id: extra.id) }
            previous.text = ""
            previous.status = .pending
            previous.error = nil
            previous.usage = nil
            previous.timings = nil
            previous.model = plan.request.model
            previous.citations = Self.citations(grounding, turn, conversation)
            try await store.update(previous)
            answer = previous
        } else {
            answer = Message(conversationID: conversationID, role: .assistant, text: "", model: plan.request.model, status: .pending, citations: Self.citations(grounding, turn, conversation))
            try await store.append(answer)
        }
        return (plan, question, answer)
    }

    /// The sources an answer starts with: the passages it must rest on, then the remembered facts
    /// it was given (numbered after them; a translator is given none).
    static func citations(_ grounding: Grounding?, _ turn: TurnOptions, _ conversation: Conversation) -> [Citation] {
        var citations = grounding?.citations ?? []
        guard case .chat = conversation.mode else { return citations }
        for remembered in turn.remembered {
            citations.append(.remembered(remembered.fact, number: (citations.map(\.number).max() ?? 0) + 1, score: remembered.score))
        }
        return citations
    }

    /// The question `retry` would ask again: the conversation's last user message.
    public func lastQuestion(in conversationID: UUID) async throws -> Message {
        _ = try await loadConversation(conversationID)
        guard let question = try await store.messages(in: conversationID).last(where: { $0.role == .user }) else { throw AssistantError.nothingToRetry }
        return question
    }

    /// Answers a history that the caller keeps (the OpenAI-compatible API): the persona's prompt,
    /// grounding and context fitting apply as in a conversation, but nothing is stored.
    public func answer(_ history: [ChatMessage], persona: Persona, grounding: Grounding? = nil, options turn: TurnOptions = TurnOptions()) async throws -> StatelessAnswer {
        let setup = try await backend.chat(for: turn)
        var persona = persona
        if let grounding { persona.systemPrompt += "\n\n" + grounding.instructions }
        let plan = try plan(persona: persona, history: history, setup: setup, turn: turn, grounded: grounding != nil)
        let events = SupportCheck.checked(setup.model.stream(plan.request), answering: history, citations: grounding?.citations ?? [])
        return StatelessAnswer(request: plan.request, droppedMessages: plan.droppedMessages, events: events)
    }

    /// The system prompt and model settings a conversation's answers use.
    public func persona(for conversation: Conversation) async throws -> Persona {
        var persona = try await personas.persona(named: conversation.persona)
        if case .translator(let target) = conversation.mode {
            persona.systemPrompt = PersonaCatalog.translatorPrompt(target: target)
            persona.temperature = persona.temperature ?? 0.2
        }
        return persona
    }

    /// The chat model answers would use now, unless a persona names another.
    public func currentModel(options turn: TurnOptions = TurnOptions()) async throws -> String {
        try await turn.model.asyncOr { try await backend.chat(for: turn).options.model }
    }

    // MARK: Planning

    struct Plan: Sendable {
        var request: ChatRequest
        var droppedMessages: Int
    }

    private func plan(for conversation: Conversation, history: [Message], grounding: Grounding?, setup: ChatSetup, turn: TurnOptions) async throws -> Plan {
        var persona = try await persona(for: conversation)
        if let grounding { persona.systemPrompt += "\n\n" + grounding.instructions }
        // A translator's target language is its own; any other conversation may be asked for one.
        if case .chat = conversation.mode, let instruction = turn.languageInstruction { persona.systemPrompt += "\n\n" + instruction }
        if case .chat = conversation.mode, let situation = turn.situationInstruction { persona.systemPrompt += "\n\n" + situation }
        if case .chat = conversation.mode, let memory = turn.memoryInstruction { persona.systemPrompt += "\n\n" + memory }
        var chatHistory = history.map(\.chatMessage)
        // A translator translates each message on its own: earlier turns would only invite the
        // model to answer them or to continue a dialogue.
        if case .translator = conversation.mode, let last = chatHistory.last { chatHistory = [last] }
        return try plan(persona: persona, history: chatHistory, setup: setup, turn: turn, grounded: grounding != nil)
    }

    private func plan(persona: Persona, history: [ChatMessage], setup: ChatSetup, turn: TurnOptions, grounded: Bool = false) throws -> Plan {
        let options = setup.options
        // What the turn asks for beats the persona's choice, which beats the settings'.
        let model = turn.model ?? persona.model ?? options.model
        let window = try HistoryWindow.fit(
            system: .system(persona.systemPrompt),
            history: history,
            budget: options.promptBudget(for: model),
            counter: setup.counter
        )
        // An answer from documents repeats what its passages say: unless someone chose a
        // temperature, it samples little (the answer-set eval measured 83 % right at 0.2 against
        // 80 % at llama-server's default 0.8).
        let settings = Sampling(temperature: options.temperature ?? (grounded ? Grounding.temperature : nil), maxTokens: options.maxTokens)
        let request = ChatRequest(model: model, messages: window.messages, sampling: turn.sampling.over(persona.sampling).over(settings))
        return Plan(request: request, droppedMessages: window.droppedMessages)
    }
}

/// An answer to a history the caller keeps: the request as sent, and its stream.
public struct StatelessAnswer: Sendable {
    public var request: ChatRequest
    /// Older messages left out to fit the model's context.
    public var droppedMessages: Int
    public var events: AsyncThrowingStream<ChatStreamEvent, any Error>

    /// An answer read to its end.
    public struct Whole: Sendable {
        /// The finished text (what the stream ended with, else its pieces).
        public var text: String
        /// The model that answered: the one it named, else the one asked.
        public var model: String
        public var usage: TokenUsage?
        public var finishReason: FinishReason?
        /// When the first non-empty piece of text came, if any did.
        public var firstText: ContinuousClock.Instant?
    }

    /// Reads the stream to its end.
    public func whole() async throws -> Whole {
        var result = Whole(text: "", model: request.model, usage: nil, finishReason: nil, firstText: nil)
        for try await event in events {
            switch event {
            case .delta(let piece):
                if result.firstText == nil, !piece.isEmpty { result.firstText = .now }
                result.text += piece
            case .usage(let reported):
                result.usage = reported
            case .finished(let completion):
                result.text = completion.text
                if !completion.model.isEmpty { result.model = completion.model }
                result.usage = completion.usage ?? result.usage
                result.finishReason = completion.finishReason
            }
        }
        return result
    }
}
