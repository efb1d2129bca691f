public import SibylCore

/// How the conversation engine asks the model.
public struct EngineOptions: Sendable {
    /// How new conversations get their title.
    public typealias TitleStyle = SibylCore.TitleStyle

    /// The chat model, unless the persona names its own.
    public var model: String
    public var temperature: Double?
    public var maxTokens: Int?
    /// The model's context size; nil looks it up among known models, else uses a safe default.
    public var contextWindow: Int?
    /// Tokens kept free for the answer when fitting history (at least `maxTokens` when that is set).
    public var reserve: Int
    public var titles: TitleStyle
    /// How often a growing answer is saved, so a crash loses at most this much.
    public var saveInterval: Duration

    public init(
        model: String,
        temperature: Double? = nil,
        maxTokens: Int? = nil,
        contextWindow: Int? = nil,
        reserve: Int = 1024,
        titles: TitleStyle = .model,
        saveInterval: Duration = .seconds(1)
    ) {
        self.model = model
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.contextWindow = contextWindow
        self.reserve = reserve
        self.titles = titles
        self.saveInterval = saveInterval
    }

    /// Tokens the prompt may use for a given model.
    func promptBudget(for model: String) -> Int {
        let window = contextWindow ?? ContextWindows.tokens(for: model) ?? ContextWindows.fallback
        return max(0, window - max(reserve, maxTokens ?? 0))
    }
}
