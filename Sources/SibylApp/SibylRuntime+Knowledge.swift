import Assistant
import DocumentExtraction
import Foundation
public import Knowledge
import PineconeVectors
public import SibylConfig
import SibylCore
import VectorIndex

extension Settings {
    /// How passages are ranked for a question (`docs.vector_weight`, `docs.lexical_weight`,
    /// `docs.index`, `docs.fusion`).
    public var retrieval: RetrievalOptions {
        RetrievalOptions(vectorWeight: self[.docsVectorWeight], lexicalWeight: self[.docsLexicalWeight], index: self[.docsIndex], fusion: self[.docsFusion])
    }
}

/// What retrieval is set up with; a change of any part makes a new retriever.
struct RetrieverKey: Hashable {
    var embeddingModel: String
    var options: RetrievalOptions
    var placement: VectorPlacement
}

/// Where the knowledge base's vectors are searched, as the settings say (`docs.vector_store`,
/// `pinecone.index`, `pinecone.control_url`).
struct VectorPlacement: Hashable {
    var store: VectorStoreKind
    var index: String
    var controlURL: String

    init(_ settings: Settings) {
        store = settings[.docsVectorStore]
        index = store == .pinecone ? settings[.pineconeIndex] : ""
        controlURL = store == .pinecone ? settings[.pineconeControlURL] : ""
    }
}

extension SibylRuntime {
    /// The collection documents go to and answers come from when none is named.
    public var defaultCollection: String { settings[.docsCollection] }

    /// The embedder documents and questions are embedded with (a local model is loaded once).
    func embeddingSetup() async throws -> EmbeddingSetup {
        try await providers.embeddingSetup()
    }

    /// Retrieval over the knowledge base with the current embedder and settings. Kept while they
    /// stay the same, so its vector index is loaded once; the index follows every change to the
    /// knowledge base, from this process or another.
    func retriever() async throws -> Retriever {
        let setup = try await embeddingSetup()
        let options = settings.retrieval
        let key = RetrieverKey(embeddingModel: setup.model, options: options, placement: VectorPlacement(settings))
        if let kept = retrievers.withLock({ $0[key] }) { return kept }
        let made = Retriever(store: try await knowledgeBase(), embedder: setup.embedder, options: options)
        return retrievers.withLock { kept in
            if let existing = kept[key] { return existing }
            kept[key] = made
            return made
        }
    }

    /// What grounded answers rest on: retrieval, and how relevant a passage must be.
    func grounder() async throws -> DocumentGrounder {
        let settings = settings
        return DocumentGrounder(
            retriever: try await retriever(),
            threshold: settings[.docsThreshold],
            passages: settings[.docsPassages] ?? (providers.chatsLocally ? RetrievalDefaults.localPassages : RetrievalDefaults.passages)
        )
    }

    /// Chunk sizes from the settings, capped at the embedder's limit.
    func chunker(for setup: EmbeddingSetup) -> Chunker {
        let settings = settings
        return Chunker(
            counter: setup.counter,
            limitTokens: setup.limit,
            targetTokens: settings[.docsChunkTokens],
            overlapFraction: settings[.docsOverlap] / 100
        )
    }

    /// Ingestion into the knowledge base with the current embedder, OCR and chunk sizes; scans are
    /// read in `ocrLanguages`, else in the settings' languages.
    func ingestor(ocrLanguages: OCRLanguages? = nil) async throws -> Ingestor {
        let setup = try await embeddingSetup()
        return Ingestor(
            store: try await knowledgeBase(),
            extractor: DocumentExtractor(
                options: DocumentExtractor.Options(
                    ocrLanguages: (ocrLanguages ?? settings[.docsOCRLanguages]).tesseractArgument,
                    maxPDFPages: settings[.docsMaxPDFPages],
                    timeLimit: .seconds(settings[.docsMaxExtractionSeconds])
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
    /// The knowledge base with its vectors in the Pinecone index `placement` names (passages, words
    /// and a copy of the vectors stay in `base`). The index is described, or made with the
    /// embedder's dimension when it is missing, and given the vectors it lacks.
    func withPinecone(_ base: any KnowledgeBase, _ placement: VectorPlacement) async throws -> any KnowledgeBase {
        let settings = settings
        let apiKey = try pineconeAPIKey()
        let control = PineconeControlClient(baseURL: placement.controlURL, apiKey: apiKey, logger: logger)
        let name = placement.index
        var index = try await control.indexIfExists(named: name)
        if index == nil {
            // One short text tells the embedder's dimension (384 for MiniLM, 1536 for OpenAI's small model).
            let probe = try await embeddingSetup().embedder.embed(["dimension"], options: EmbeddingOptions())
            guard let dimension = probe.vectors.first?.count, dimension > 0 else { throw PineconeError.invalidResponse("the embedder returned no vector") }
            logger.info("making Pinecone index \(name) (\(dimension) dimensions, cosine, serverless)")
            do {
                _ = try await control.createIndex(PineconeIndexRequest(
                    name: name, dimension: dimension, cloud: settings[.pineconeCloud], region: settings[.pineconeRegion]
                ))
            } catch let error as PineconeError where error.status == 409 {
                // Another instance made it first.
            }
            index = try await control.waitUntilReady(named: name)
        }
        guard let index else { return base }
        // Accounts of a shared server keep their collections apart in one index.
        let prefix = knowledgeOwner.isEmpty ? "" : knowledgeOwner + "/"
        let placed = PineconeKnowledgeBase(wrapping: base, index: control.indexClient(for: index), namespacePrefix: prefix, logger: logger)
        // Documents added while the vectors were searched elsewhere are copied in.
        try await placed.mirrorMissing()
        return placed
    }

    /// Pinecone's API key: `PINECONE_API_KEY`, else the stored key named `pinecone`.
    func pineconeAPIKey() throws -> String {
        let settings = settings
        if let key = settings.environment["PINECONE_API_KEY"], !key.isEmpty { return key }
        if let key = try settings.secrets.secret(named: "pinecone"), !key.isEmpty { return key }
        throw PineconeError.invalidRequest("docs.vector_store is pinecone but no key is set: set PINECONE_API_KEY, or store one named 'pinecone'")
    }
}
