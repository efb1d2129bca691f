import DocumentExtraction
import Foundation
import Knowledge
import PineconeVectors
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

extension SibylRuntime {
    /// The knowledge base with its vectors in Pinecone when `docs.vector_store` is `pinecone`
    /// (passages, words and a copy of the vectors stay in `base`); `base` itself otherwise. The
    /// index is described, or made with the embedder's dimension when it is missing.
    func withVectorStore(_ base: any KnowledgeBase) async throws -> any KnowledgeBase {
        let settings = settings
        guard settings.value("docs.vector_store") == "pinecone" else { return base }
        let apiKey = try pineconeAPIKey()
        let control = PineconeControlClient(baseURL: settings.value("pinecone.control_url") ?? PineconeControlClient.defaultURL, apiKey: apiKey, logger: logger)
        let name = settings.value("pinecone.index") ?? "sibyl"
        var index = try await control.indexIfExists(named: name)
        if index == nil {
            // One short text tells the embedder's dimension (384 for MiniLM, 1536 for OpenAI's small model).
            let probe = try await embeddingSetup().embedder.embed(["dimension"], options: EmbeddingOptions())
            guard let dimension = probe.vectors.first?.count, dimension > 0 else { throw PineconeError.invalidResponse("the embedder returned no vector") }
            logger.info("making Pinecone index \(name) (\(dimension) dimensions, cosine, serverless)")
            do {
                _ = try await control.createIndex(PineconeIndexRequest(
                    name: name, dimension: dimension, cloud: settings.value("pinecone.cloud") ?? "aws", region: settings.value("pinecone.region") ?? "us-east-1"
                ))
            } catch let error as PineconeError where error.status == 409 {
                // Another instance made it first.
            }
            index = try await control.waitUntilReady(named: name)
        }
        guard let index else { return base }
        // Accounts of a shared server keep their collections apart in one index.
        let prefix = knowledgeOwner.isEmpty ? "" : knowledgeOwner + "/"
        return PineconeKnowledgeBase(wrapping: base, index: control.indexClient(for: index), namespacePrefix: prefix, logger: logger)
    }

    /// Pinecone's API key: `PINECONE_API_KEY`, else the stored key named `pinecone`.
    func pineconeAPIKey() throws -> String {
        let settings = settings
        if let key = settings.environment["PINECONE_API_KEY"], !key.isEmpty { return key }
        if let key = try settings.secrets.secret(named: "pinecone"), !key.isEmpty { return key }
        throw PineconeError.invalidRequest("docs.vector_store is pinecone but no key is set: set PINECONE_API_KEY, or store one named 'pinecone'")
    }
}
