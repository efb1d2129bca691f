public import Assistant
import Foundation
public import Knowledge
import SibylCore

extension SibylRuntime.Documents {
    /// Embeds texts with the configured embedder.
    public func embed(_ texts: [String]) async throws -> EmbeddingOutcome {
        guard !texts.isEmpty else { throw AssistantError.emptyQuery }
        let setup = try await runtime.embeddingSetup()
        let result = try await setup.embedder.embed(texts, options: EmbeddingOptions())
        return EmbeddingOutcome(vectors: result.vectors, model: setup.model, tokens: texts.reduce(0) { $0 + setup.counter.count($1) })
    }
}

extension SibylRuntime.Documents {
    /// The embedder documents and questions are embedded with now, with its model's name and token
    /// counter; fails (with what to install or set) when it cannot be set up.
    public func embedder() async throws -> EmbeddingSetup {
        try await runtime.embeddingSetup()
    }

    /// How passages are ranked for a question now (`docs.*` settings).
    public var retrievalOptions: RetrievalOptions { runtime.settings.retrieval }
}
