import Foundation
public import Knowledge
public import SibylCore

/// A chat a client keeps itself (the OpenAI-compatible API): its messages, answered by a persona,
/// from the documents or not. Nothing is stored.
public struct CompletionRequest: Sendable {
    /// The conversation so far; the client's system messages add to the persona's prompt.
    public var messages: [ChatMessage]
    public var persona: String
    public var documents: DocumentScope?
    public var options: TurnOptions

    public init(messages: [ChatMessage], persona: String, documents: DocumentScope? = nil, options: TurnOptions = TurnOptions()) {
        self.messages = messages
        self.persona = persona
        self.documents = documents
        self.options = options
    }
}

/// How a completion goes: an answer streaming, or the plain reply when no document is relevant.
public enum CompletionOutcome: Sendable {
    /// The answer streams; its last event carries the sources it cites.
    case answering(CompletionAnswer)
    /// No passage of the documents was relevant enough; no model was asked.
    case declined(reply: String, closest: [SearchResult])
}

/// An answer to a chat the client keeps, as it is written.
public struct CompletionAnswer: Sendable {
    /// The model asked.
    public var model: String
    /// The numbered passages the model was given (empty when not grounded).
    public var sources: [Citation]
    /// The answer's pieces, then `.finished` with the whole answer and the sources it cites.
    public var events: AsyncThrowingStream<CompletionEvent, any Error>

    package init(model: String, sources: [Citation], events: AsyncThrowingStream<CompletionEvent, any Error>) {
        self.model = model
        self.sources = sources
        self.events = events
    }

    /// Reads the answer to its end.
    public func whole() async throws -> CompletionEnding {
        var pieces = ""
        var firstText: ContinuousClock.Instant?
        var usage: TokenUsage?
        for try await event in events {
            switch event {
            case .delta(let piece):
                if firstText == nil, !piece.isEmpty { firstText = .now }
                pieces += piece
            case .usage(let reported):
                usage = reported
            case .finished(var ending):
                ending.firstText = firstText
                return ending
            }
        }
        return CompletionEnding(text: pieces, model: model, usage: usage, finishReason: nil, citations: [], firstText: firstText)
    }
}

/// What happens while a completion is written.
public enum CompletionEvent: Sendable {
    /// More answer text.
    case delta(String)
    /// Token counts reported by the provider.
    case usage(TokenUsage)
    /// The answer is complete.
    case finished(CompletionEnding)
}

/// A completed answer: its text, and the sources it cites (those it refers to by number; all it was
/// given when it refers to none).
public struct CompletionEnding: Sendable {
    public var text: String
    /// The model that answered: the one it named, else the one asked.
    public var model: String
    public var usage: TokenUsage?
    public var finishReason: FinishReason?
    public var citations: [Citation]
    /// When the first non-empty piece of text came (set by `CompletionAnswer.whole()`).
    public var firstText: ContinuousClock.Instant?

    package init(text: String, model: String, usage: TokenUsage? = nil, finishReason: FinishReason? = nil, citations: [Citation], firstText: ContinuousClock.Instant? = nil) {
        self.text = text
        self.model = model
        self.usage = usage
        self.finishReason = finishReason
        self.citations = citations
        self.firstText = firstText
    }

    /// The cited sources as lines that follow the answer ("Sources:" …); empty without citations.
    public var sourcesText: String { Grounding.sourcesBlock(citations) }
}

/// The result of embedding texts.
public struct EmbeddingOutcome: Sendable {
    public var vectors: [[Float]]
    public var model: String
    /// Tokens the texts cost, by the embedder's own tokenizer.
    public var tokens: Int

    package init(vectors: [[Float]], model: String, tokens: Int) {
        self.vectors = vectors
        self.model = model
        self.tokens = tokens
    }
}
