public import SibylCore

/// The chat model an answer goes to, with how the engine should use it.
public struct ChatSetup: Sendable {
    public var model: any ChatModel
    public var options: EngineOptions
    public var counter: any TokenCounter
    /// Tools answers may call (the user's MCP servers), when the user turned them on.
    public var tools: (any ToolProvider)?

    public init(model: any ChatModel, options: EngineOptions, counter: any TokenCounter = EstimatingTokenCounter(), tools: (any ToolProvider)? = nil) {
        self.model = model
        self.options = options
        self.counter = counter
        self.tools = tools
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
