public import Assistant
import Foundation
public import Knowledge
import SibylConfig
import SibylCore
import TextEmbedding

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

    /// The embedding models one may choose: the local ones (all-MiniLM-L6-v2 and
    /// all-mpnet-base-v2), and, when a remote provider is set up for embeddings, OpenAI's and those
    /// the provider lists; with the one documents are embedded with now.
    public func embeddingModels() async -> (current: String, models: [(id: String, local: Bool)], problem: String?) {
        let providers = runtime.providers
        let localName = runtime.settings[.embeddingsLocalModel].name
        let provider = try? providers.provider(for: .embeddings)
        let current = provider.map { $0.isLocal ? localName : ($0.model.isEmpty ? CapabilityKind.embeddings.defaultModel : $0.model) } ?? localName
        var remote: [String] = []
        var problem: String?
        do {
            let (client, _) = try providers.remoteClient(for: .embeddings)
            remote = ["text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002"]
            if let listed = try? await client.models() { remote += listed.map(\.id).filter { $0.lowercased().contains("embed") }.sorted() }
        } catch {
            problem = ConversationEngine.describe(error)
        }
        let locals = LocalEmbeddingModel.allCases.map(\.name)
        var seen = Set(locals)
        let models = locals.map { (id: $0, local: true) } + remote.filter { seen.insert($0).inserted }.map { (id: $0, local: false) }
        return (current, models, problem)
    }

    /// How passages are ranked for a question now (`docs.*` settings).
    public var retrievalOptions: RetrievalOptions { runtime.settings.retrieval }
}
