/// How a chat model picks its words, as OpenAI's chat API names the knobs. Every value is
/// optional: nil leaves it to whoever comes next (the turn, then the persona, then the settings,
/// then the provider's default).
public struct Sampling: Sendable, Hashable, Codable {
    /// 0–2: higher writes more freely, lower more predictably.
    public var temperature: Double?
    /// The longest answer, in tokens (at least 1).
    public var maxTokens: Int?
    /// 0–1: samples only from the most likely tokens whose probabilities add up to this.
    public var topP: Double?
    /// −2–2: positive values make the model move on to new subjects.
    public var presencePenalty: Double?
    /// −2–2: positive values make the model repeat itself less.
    public var frequencyPenalty: Double?

    public init(temperature: Double? = nil, maxTokens: Int? = nil, topP: Double? = nil, presencePenalty: Double? = nil, frequencyPenalty: Double? = nil) {
        self.temperature = temperature
        self.maxTokens = maxTokens
        self.topP = topP
        self.presencePenalty = presencePenalty
        self.frequencyPenalty = frequencyPenalty
    }

    /// Whether nothing is set.
    public var isEmpty: Bool { self == Sampling() }

    /// These values, with what they leave unset taken from `fallback`.
    public func over(_ fallback: Sampling) -> Sampling {
        Sampling(
            temperature: temperature ?? fallback.temperature,
            maxTokens: maxTokens ?? fallback.maxTokens,
            topP: topP ?? fallback.topP,
            presencePenalty: presencePenalty ?? fallback.presencePenalty,
            frequencyPenalty: frequencyPenalty ?? fallback.frequencyPenalty
        )
    }

    /// Refuses the first value out of the range OpenAI's API accepts.
    public func check() throws(SamplingError) {
        if let temperature, !(0...2).contains(temperature) { throw .temperature(temperature) }
        if let maxTokens, maxTokens < 1 { throw .maxTokens(maxTokens) }
        if let topP, !(0...1).contains(topP) { throw .topP(topP) }
        if let presencePenalty, !(-2...2).contains(presencePenalty) { throw .presencePenalty(presencePenalty) }
        if let frequencyPenalty, !(-2...2).contains(frequencyPenalty) { throw .frequencyPenalty(frequencyPenalty) }
    }
}

/// A sampling value out of range.
public enum SamplingError: Error, Sendable, Hashable, CustomStringConvertible {
    case temperature(Double)
    case maxTokens(Int)
    case topP(Double)
    case presencePenalty(Double)
    case frequencyPenalty(Double)

    /// The value's name in OpenAI's API (and Sibyl's).
    public var parameter: String {
        switch self {
        case .temperature: "temperature"
        case .maxTokens: "max_tokens"
        case .topP: "top_p"
        case .presencePenalty: "presence_penalty"
        case .frequencyPenalty: "frequency_penalty"
        }
    }

    public var description: String {
        switch self {
        case .temperature(let value): "The temperature must be between 0 and 2, not \(value)."
        case .maxTokens(let value): "The longest answer must be at least 1 token, not \(value)."
        case .topP(let value): "top_p must be between 0 and 1, not \(value)."
        case .presencePenalty(let value): "The presence penalty must be between -2 and 2, not \(value)."
        case .frequencyPenalty(let value): "The frequency penalty must be between -2 and 2, not \(value)."
        }
    }
}
