/// What to ask a chat model: the messages and the sampling settings.
public struct ChatRequest: Sendable, Hashable {
    public var model: String
    public var messages: [ChatMessage]
    public var sampling: Sampling
    public var stop: [String]
    /// An opaque end-user identifier some providers use for abuse monitoring.
    public var user: String?
    /// Tools the model may call instead of answering at once.
    public var tools: [ChatTool] = []

    public init(
        model: String,
        messages: [ChatMessage],
        sampling: Sampling = Sampling(),
        stop: [String] = [],
        user: String? = nil
    ) {
        self.model = model
        self.messages = messages
        self.sampling = sampling
        self.stop = stop
        self.user = user
    }

    /// The sampling temperature (part of `sampling`).
    public var temperature: Double? {
        get { sampling.temperature }
        set { sampling.temperature = newValue }
    }

    /// The longest answer, in tokens (part of `sampling`).
    public var maxTokens: Int? {
        get { sampling.maxTokens }
        set { sampling.maxTokens = newValue }
    }
}

/// Why a model stopped generating.
public enum FinishReason: Sendable, Hashable, Codable {
    case stop
    case length
    case contentFilter
    case toolCalls
    case other(String)

    public init(rawValue: String) {
        switch rawValue {
        case "stop": self = .stop
        case "length": self = .length
        case "content_filter": self = .contentFilter
        case "tool_calls", "function_call": self = .toolCalls
        default: self = .other(rawValue)
        }
    }

    public var rawValue: String {
        switch self {
        case .stop: "stop"
        case .length: "length"
        case .contentFilter: "content_filter"
        case .toolCalls: "tool_calls"
        case .other(let value): value
        }
    }
}

/// A finished answer from a chat model.
public struct ChatCompletion: Sendable, Hashable {
    public var text: String
    public var model: String
    public var finishReason: FinishReason?
    public var usage: TokenUsage?
    public var timings: Timings
    /// The tools the model asked to call before it answers.
    public var toolCalls: [ChatToolCall]

    public init(text: String, model: String, finishReason: FinishReason?, usage: TokenUsage?, timings: Timings, toolCalls: [ChatToolCall] = []) {
        self.text = text
        self.model = model
        self.finishReason = finishReason
        self.usage = usage
        self.timings = timings
        self.toolCalls = toolCalls
    }
}

/// What a streaming chat answer reports as it arrives.
public enum ChatStreamEvent: Sendable, Hashable {
    /// More answer text.
    case delta(String)
    /// Token counts, usually in the last chunk.
    case usage(TokenUsage)
    /// The stream ended normally; carries the whole answer.
    case finished(ChatCompletion)
}
