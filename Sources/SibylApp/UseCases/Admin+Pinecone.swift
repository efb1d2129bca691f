import Assistant
import Foundation
import Knowledge
import PineconeVectors
import SibylConfig
public import SibylCore

/// One Pinecone index as the settings page lists it.
public struct PineconeIndexSummary: Sendable, Hashable {
    public var name: String
    public var dimension: Int?
    public var metric: String
    public var ready: Bool
    /// Every vector in it, all namespaces (nil when its statistics could not be read).
    public var vectors: Int?
}

/// Where the knowledge base's vectors are searched, and the Pinecone indexes one may choose.
public struct VectorStoreOverview: Sendable, Hashable {
    /// `embedded` or `pinecone` (`docs.vector_store`).
    public var store: VectorStoreKind
    /// The index `pinecone.index` names (used when the store is Pinecone).
    public var index: String
    /// Whether a Pinecone key is set (`PINECONE_API_KEY`, or the stored key `pinecone`).
    public var keySet: Bool
    /// The key's indexes, when a key is set and Pinecone answered.
    public var indexes: [PineconeIndexSummary]
    /// Why the indexes could not be listed.
    public var problem: String?
    /// The embedder's vector size, which a new index gets (nil when it could not be set up).
    public var dimension: Int?
}

extension SibylRuntime.Admin {
    /// Where vectors are searched now, and the Pinecone indexes the key can reach.
    public func vectorStore() async -> VectorStoreOverview {
        let settings = runtime.settings
        var overview = VectorStoreOverview(
            store: settings[.docsVectorStore], index: settings[.pineconeIndex], keySet: (try? runtime.pineconeAPIKey()) != nil, indexes: [], problem: nil
        )
        guard overview.keySet else { return overview }
        overview.dimension = try? await embeddingDimension()
        do {
            let control = try pineconeControl()
            var summaries: [PineconeIndexSummary] = []
            for index in try await control.listIndexes().sorted(by: { $0.name < $1.name }) {
                let vectors = index.status.ready ? try? await control.indexClient(for: index).describeStats().totalVectorCount : nil
                summaries.append(PineconeIndexSummary(name: index.name, dimension: index.dimension, metric: index.metric, ready: index.status.ready, vectors: vectors))
            }
            overview.indexes = summaries
        } catch {
            overview.problem = ConversationEngine.describe(error)
        }
        return overview
    }

    /// Makes a serverless cosine index with the embedder's dimension, in `pinecone.cloud` and
    /// `pinecone.region`, and waits until it is ready.
    public func createPineconeIndex(named name: String) async throws -> PineconeIndexSummary {
        let settings = runtime.settings
        let control = try pineconeControl()
        let dimension = try await embeddingDimension()
        _ = try await control.createIndex(PineconeIndexRequest(name: name, dimension: dimension, cloud: settings[.pineconeCloud], region: settings[.pineconeRegion]))
        let made = try await control.waitUntilReady(named: name)
        await runtime.log(.info, .docsVectorStore, "made the Pinecone index \(name) (\(dimension) dimensions)")
        return PineconeIndexSummary(name: made.name, dimension: made.dimension, metric: made.metric, ready: made.status.ready, vectors: 0)
    }

    /// Searches vectors in `store` from now on (with Pinecone, in `index`): the knowledge base is
    /// opened there at once, so that what is wrong (a key, an index of another dimension) is told
    /// now and the settings stay as they were; documents already added are copied to the index.
    public func useVectorStore(_ store: VectorStoreKind, index: String? = nil) async throws {
        let before = (runtime.settings[.docsVectorStore], runtime.settings[.pineconeIndex])
        if store == .pinecone {
            _ = try runtime.pineconeAPIKey()
            if let index { try await set(.pineconeIndex, to: index) }
        }
        try await set(.docsVectorStore, to: store)
        do {
            _ = try await runtime.knowledgeBase()
        } catch {
            _ = try? await set(.docsVectorStore, to: before.0)
            _ = try? await set(.pineconeIndex, to: before.1)
            throw error
        }
        await runtime.log(.info, .docsVectorStore, store == .pinecone ? "vectors are searched in the Pinecone index \(runtime.settings[.pineconeIndex])" : "vectors are searched in the knowledge base")
    }

    private func pineconeControl() throws -> PineconeControlClient {
        PineconeControlClient(baseURL: runtime.settings[.pineconeControlURL], apiKey: try runtime.pineconeAPIKey(), logger: runtime.logger)
    }

    /// The size of the vectors the current embedder makes.
    private func embeddingDimension() async throws -> Int {
        let probe = try await runtime.embeddingSetup().embedder.embed(["dimension"], options: EmbeddingOptions())
        guard let dimension = probe.vectors.first?.count, dimension > 0 else { throw PineconeError.invalidResponse("the embedder returned no vector") }
        return dimension
    }
}
