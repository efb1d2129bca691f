/// Token counts a provider reports for one request.
public struct TokenUsage: Sendable, Hashable, Codable {
    public var promptTokens: Int
    public var completionTokens: Int

    public init(promptTokens: Int, completionTokens: Int) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
    }

    public var totalTokens: Int { promptTokens + completionTokens }
}

/// How long a request took: until the first token of the answer, and in all.
public struct Timings: Sendable, Hashable, Codable {
    /// Time from sending the request to the first answer text; nil when no text arrived.
    public var timeToFirstToken: Duration?
    public var total: Duration

    public init(timeToFirstToken: Duration?, total: Duration) {
        self.timeToFirstToken = timeToFirstToken
        self.total = total
    }

    /// The time to first token in whole milliseconds, for storage and JSON output.
    public var timeToFirstTokenMilliseconds: Int? { timeToFirstToken.map(\.milliseconds) }
    /// The total time in whole milliseconds.
    public var totalMilliseconds: Int { total.milliseconds }
}

extension Duration {
    /// This duration in whole milliseconds, rounded down.
    public var milliseconds: Int {
        let (seconds, attoseconds) = components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }
}
