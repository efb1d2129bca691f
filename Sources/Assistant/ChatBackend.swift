import SibylCore

/// What one answer may set for itself, over the settings and the persona.
public struct TurnOptions: Sendable, Hashable {
    /// A chat model other than the configured one (a vision model for a photo, say).
    public var model: String?
    public var temperature: Double?
    public var maxTokens: Int?
    /// The language answers are written in (`Korean`, `English` …), whatever the question's; nil:
    /// the model answers in the question's language.
    public var answerLanguage: String?

    public init(model: String? = nil, temperature: Double? = nil, maxTokens: Int? = nil, answerLanguage: String? = nil) {
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.answerLanguage = answerLanguage
    }

    /// What the system prompt adds for `answerLanguage`.
    public var languageInstruction: String? {
        guard let language = answerLanguage?.trimmingCharacters(in: .whitespacesAndNewlines), !language.isEmpty else { return nil }
        return "Always write your answer in \(language), whatever language the question is in."
    }
}

/// The chat model an answer goes to, with how the engine should use it.
public struct ChatSetup: Sendable {
    public var model: any ChatModel
    public var options: EngineOptions
    public var counter: any TokenCounter

    public init(model: any ChatModel, options: EngineOptions, counter: any TokenCounter = EstimatingTokenCounter()) {
        self.model = model
        self.options = options
        self.counter = counter
    }
}

/// Where answers come from, asked again for every answer, so that a changed setting (another
/// model, another provider) applies to the next answer without a restart.
public protocol ChatBackend: Sendable {
    /// The chat model and options for one answer. The engine applies the turn's own choices over
    /// the options returned; a backend may use them to pick a token counter or context size.
    func chat(for turn: TurnOptions) async throws -> ChatSetup
}

/// One chat model with fixed options: for tests, benchmarks and embedders of the engine.
public struct FixedChatBackend: ChatBackend {
    public let setup: ChatSetup

    public init(_ setup: ChatSetup) {
        self.setup = setup
    }

    public func chat(for turn: TurnOptions) async throws -> ChatSetup {
        setup
    }
}
