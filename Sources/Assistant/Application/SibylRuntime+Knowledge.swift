import DocumentExtraction
import Foundation
import Knowledge
import SibylCore
import VectorIndex

/// What retrieval is set up with; a change of any part makes a new retriever.
struct RetrieverKey: Hashable {
    var embeddingModel: String
    var options: RetrievalOptions
}

extension SibylRuntime {
    /// The collection documents go to and answers come from when none is named.
    public var defaultCollection: String { settings.value("docs.collection") ?? "default" }

    /// The embedder documents and questions are embedded with (a local model is loaded once).
    public func embeddingSetup() throws -> EmbeddingSetup {
        try providers.embeddingSetup()
    }

    /// Retrieval over the knowledge base with the current embedder and settings. Kept while they
    /// stay the same, so its vector index is loaded once; the index follows every change to the
    /// knowledge base, from this process or another.
    public func retriever() async throws -> Retriever {
        let setup = try embeddingSetup()
        let settings = settings
        let options = RetrievalOptions(
            vectorWeight: settings.number("docs.vector_weight") ?? 1,
            lexicalWeight: settings.number("docs.lexical_weight") ?? 0.2,
            index: IndexChoice(rawValue: settings.value("docs.index") ?? "automatic") ?? .automatic,
            fusion: FusionMethod(rawValue: settings.value("docs.fusion") ?? "score") ?? .score
        )
        let key = RetrieverKey(embeddingModel: setup.model, options: options)
        if let kept = retrievers.withLock({ $0[key] }) { return kept }
        let made = Retriever(store: try await knowledgeBase(), embedder: setup.embedder, options: options)
        return retrievers.withLock { kept in
            if let existing = kept[key] { return existing }
            kept[key] = made
            return made
        }
    }

    /// What grounded answers rest on: retrieval, and how relevant a passage must be.
    public func grounder() async throws -> DocumentGrounder {
        let settings = settings
        return DocumentGrounder(
            retriever: try await retriever(),
            threshold: settings.number("docs.threshold") ?? DocumentGrounder.defaultThreshold,
            passages: settings.integer("docs.passages") ?? (providers.chatsLocally ? DocumentGrounder.localPassages : DocumentGrounder.defaultPassages)
        )
    }

    /// Chunk sizes from the settings, capped at the embedder's limit.
    public func chunker(for setup: EmbeddingSetup) -> Chunker {
        let settings = settings
        return Chunker(
            counter: setup.counter,
            limitTokens: setup.limit,
            targetTokens: settings.integer("docs.chunk_tokens") ?? 400,
            overlapFraction: (settings.number("docs.overlap") ?? 15) / 100
        )
    }

    /// Ingestion into the knowledge base with the current embedder, OCR and chunk sizes.
    public func ingestor() async throws -> Ingestor {
        let setup = try embeddingSetup()
        return Ingestor(
            store: try await knowledgeBase(),
            extractor: DocumentExtractor(
                options: DocumentExtractor.Options(
                    maxPDFPages: settings.integer("docs.max_pdf_pages") ?? 5_000,
                    timeLimit: .seconds(settings.integer("docs.max_extraction_seconds") ?? 1_800)
                ),
                recognizer: providers.textRecognizer()
            ),
            embedder: setup.embedder,
            embeddingModel: setup.model,
            chunker: chunker(for: setup)
        )
    }
}
