import Foundation
import Knowledge
import LocalEngines
import OpenAIClient
import SibylConfig
import SibylCore
import TextEmbedding
import Tokenizers
import VectorIndex

/// The embedding side of the knowledge base: the embedder, its model name, and how it counts tokens.
public struct EmbeddingSetup: Sendable {
    public var embedder: any Embedder
    /// The name recorded per collection, so vectors from different models never mix.
    public var model: String
    /// The embedder's own token counter, for chunk sizes.
    public var counter: any TokenCounter
    /// The most tokens one text may have (special tokens excluded).
    public var limit: Int
}

extension SibylRuntime {
    /// The knowledge base of this data directory.
    public func knowledgeStore() throws -> KnowledgeStore {
        try KnowledgeStore(path: paths.home.appendingPathComponent("knowledge.sqlite").path)
    }

    /// The embedder documents and questions are embedded with.
    public func embeddingSetup() throws -> EmbeddingSetup {
        let provider = try provider(for: .embeddings)
        if provider.isLocal {
            try local.requireInstalled("embeddings")
            let embedder = try MiniLMEmbedder(modelDirectory: local.layout.miniLMDirectory)
            // [CLS] and [SEP] take two of the model's 256 positions.
            return EmbeddingSetup(embedder: embedder, model: MiniLMEmbedder.modelName, counter: embedder.tokenizer, limit: MiniLMEmbedder.maxTokens - 2)
        }
        let (client, _) = try remoteClient(for: .embeddings)
        let model = provider.model.isEmpty ? client.configuration.defaultModels.embeddings : provider.model
        // OpenAI's embedding models read up to 8,191 tokens of cl100k_base.
        let counter: any TokenCounter = (try? BPETokenizer.load(encoding: .cl100kBase, directory: local.layout.root.appendingPathComponent("tokenizers"))) ?? EstimatingTokenCounter()
        return EmbeddingSetup(embedder: client, model: model, counter: counter, limit: 8191)
    }

    /// Chunk sizes from the settings, capped at the embedder's limit.
    public func chunker(for setup: EmbeddingSetup) -> Chunker {
        Chunker(
            counter: setup.counter,
            limitTokens: setup.limit,
            targetTokens: settings.integer("docs.chunk_tokens") ?? 400,
            overlapFraction: (settings.number("docs.overlap") ?? 15) / 100
        )
    }

    /// Retrieval over this knowledge base with the current embedder.
    public func retriever(setup: EmbeddingSetup) throws -> Retriever {
        try Retriever(store: knowledgeStore(), embedder: setup.embedder, options: RetrievalOptions(
            vectorWeight: settings.number("docs.vector_weight") ?? 1,
            lexicalWeight: settings.number("docs.lexical_weight") ?? 0.2,
            index: IndexChoice(rawValue: settings.value("docs.index") ?? "automatic") ?? .automatic,
            fusion: FusionMethod(rawValue: settings.value("docs.fusion") ?? "score") ?? .score
        ))
    }

    /// Grounding for `--docs` answers.
    public func grounder(setup: EmbeddingSetup) throws -> DocumentGrounder {
        DocumentGrounder(
            retriever: try retriever(setup: setup),
            threshold: settings.number("docs.threshold") ?? 0.3,
            passages: settings.integer("docs.passages") ?? 5
        )
    }
}
