import Foundation
import Knowledge
import SibylCore

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
    /// The answer streams; a grounded one carries the sources it was given.
    case answering(StatelessAnswer, citations: [Citation])
    /// No passage of the documents was relevant enough; no model was asked.
    case declined(reply: String, closest: [SearchResult])
}

/// The result of embedding texts.
public struct EmbeddingOutcome: Sendable {
    public var vectors: [[Float]]
    public var model: String
    /// Tokens the texts cost, by the embedder's own tokenizer.
    public var tokens: Int
}

extension SibylRuntime {
    /// Answers a chat the client keeps, with the same persona prompts, grounding rule and context
    /// fitting as a conversation.
    public func complete(_ request: CompletionRequest) async throws -> CompletionOutcome {
        var persona = try await persona(named: request.persona)
        let system = request.messages.filter { $0.role == .system }.map(\.text).filter { !$0.isEmpty }
        if !system.isEmpty { persona.systemPrompt += "\n\n" + system.joined(separator: "\n\n") }
        let history = request.messages.filter { $0.role != .system }
        guard let question = history.last(where: { $0.role == .user }), !question.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || question.hasImages else {
            throw AssistantError.emptyQuestion
        }
        var grounding: Grounding?
        if let documents = request.documents {
            switch try await grounder().ground(question.text, collection: documents.collection, mode: documents.mode) {
            case .grounded(let found, _):
                grounding = found
            case .nothingRelevant(let closest, let threshold):
                await log(.info, .completions, "no passage relevant enough for: \(question.text.prefix(80))")
                return .declined(reply: Grounding.declinedReply(closest: closest, threshold: threshold, question: question.text), closest: closest)
            }
        }
        let answer = try await engine.answer(history, persona: persona, grounding: grounding, options: request.options)
        return .answering(answer, citations: grounding?.citations ?? [])
    }

    /// Embeds texts with the configured embedder.
    public func embed(_ texts: [String]) async throws -> EmbeddingOutcome {
        guard !texts.isEmpty else { throw AssistantError.emptyQuery }
        let setup = try embeddingSetup()
        let result = try await setup.embedder.embed(texts, options: EmbeddingOptions())
        return EmbeddingOutcome(vectors: result.vectors, model: setup.model, tokens: texts.reduce(0) { $0 + setup.counter.count($1) })
    }
}
