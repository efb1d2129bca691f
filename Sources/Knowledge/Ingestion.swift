import Crypto
import Foundation
import SibylCore

/// What ingesting one file did.
public enum IngestOutcome: Sendable {
    case added(StoredDocument)
    /// The file changed since it was added; its old chunks were replaced in the same transaction.
    case replaced(StoredDocument)
    /// Already in the collection with the same content.
    case unchanged(StoredDocument)
    /// The same content is already in the collection under another path.
    case duplicate(of: String)
    case failed(String)
}

/// Progress of an ingest run.
public enum IngestEvent: Sendable {
    case started(files: Int)
    /// Work on one file began (`index` counts from 1).
    case file(URL, index: Int, of: Int)
    case phase(URL, IngestPhase)
    case finished(URL, IngestOutcome)
}

/// The phases of ingesting a file.
public enum IngestPhase: String, Sendable {
    case hashing, extracting, chunking, embedding, indexing
}

/// What a whole run did.
public struct IngestSummary: Sendable {
    public var added: [StoredDocument] = []
    public var replaced: [StoredDocument] = []
    public var unchanged: [StoredDocument] = []
    public var duplicates: [(path: String, of: String)] = []
    public var failed: [(path: String, error: String)] = []
    public var elapsed: Duration = .zero

    /// Phase times of the documents written in this run.
    public var timings: PhaseTimings { (added + replaced).map(\.timings).reduce(PhaseTimings(), +) }
    public var pages: Int { (added + replaced).reduce(0) { $0 + ($1.pageCount ?? 1) } }
    public var chunks: Int { (added + replaced).reduce(0) { $0 + $1.chunkCount } }
}

/// Problems with the knowledge base as a whole (per-file problems are outcomes, not errors).
public enum KnowledgeError: Error, LocalizedError, Equatable {
    case embeddingMismatch(collection: String, stored: String, storedDimension: Int, current: String, currentDimension: Int)
    case unknownCollection(String)
    case unknownDocument(String)
    /// A collection cannot take a name another collection has (names compare without case).
    case collectionExists(String)
    /// A collection's name is empty, too long, or has characters other than letters, digits, `-`, `_`, `.` and spaces.
    case invalidCollectionName(String)

    public var errorDescription: String? {
        switch self {
        case .embeddingMismatch(let collection, let stored, let storedDimension, let current, let currentDimension):
            "Collection '\(collection)' was indexed with \(stored) (\(storedDimension) dimensions), but the embedder now is \(current) (\(currentDimension))."
        case .unknownCollection(let name):
            "There is no collection '\(name)'."
        case .unknownDocument(let name):
            "No document matches '\(name)'."
        case .collectionExists(let name):
            "There is already a collection named '\(name)'."
        case .invalidCollectionName(let name):
            "'\(name)' cannot name a collection: use 1 to 64 letters, digits, spaces, '-', '_' or '.'."
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .embeddingMismatch:
            "Re-embed it with the current model (reindex), or switch back to the old embedding provider."
        case .unknownCollection:
            "The list of documents shows the collections."
        case .unknownDocument:
            "The list of documents shows them with their ids."
        case .collectionExists:
            "Choose another name, or remove the other collection first."
        case .invalidCollectionName:
            nil
        }
    }
}

/// Adds documents to the knowledge base: hash, extract, chunk, embed, then store in one transaction.
public struct Ingestor: Sendable {
    public let store: any KnowledgeBase
    public let extractor: any DocumentExtracting
    public let embedder: any Embedder
    /// The embedding model's name and vector size, as recorded per collection.
    public let embeddingModel: String
    public let chunker: Chunker
    /// Texts embedded per request, so progress moves and memory stays small.
    public var embeddingBatch = 64

    public init(store: any KnowledgeBase, extractor: any DocumentExtracting, embedder: any Embedder, embeddingModel: String, chunker: Chunker) {
        self.store = store
        self.extractor = extractor
        self.embedder = embedder
        self.embeddingModel = embeddingModel
        self.chunker = chunker
    }

    /// Ingests files into a collection (created if new); one file's failure does not stop the others.
    public func ingest(_ files: [URL], collection name: String, observer: @Sendable (IngestEvent) -> Void = { _ in }) async throws -> IngestSummary {
        let started = ContinuousClock.now
        guard var collection = try await store.collection(named: name, create: true) else { throw KnowledgeError.unknownCollection(name) }
        var summary = IngestSummary()
        observer(.started(files: files.count))
        for (index, file) in files.enumerated() {
            try Task.checkCancellation()
            observer(.file(file, index: index + 1, of: files.count))
            let outcome: IngestOutcome
            do {
                outcome = try await ingest(file, into: &collection, observer: observer)
            } catch let error as KnowledgeError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                let message = Redaction.redact(Self.describe(error))
                try? await store.recordFailure(path: file.path, error: message, in: collection.id)
                outcome = .failed(message)
            }
            switch outcome {
            case .added(let document): summary.added.append(document)
            case .replaced(let document): summary.replaced.append(document)
            case .unchanged(let document): summary.unchanged.append(document)
            case .duplicate(let original): summary.duplicates.append((file.path, original))
            case .failed(let message): summary.failed.append((file.path, message))
            }
            observer(.finished(file, outcome))
        }
        summary.elapsed = ContinuousClock.now - started
        return summary
    }

    private func ingest(_ file: URL, into collection: inout KnowledgeCollection, observer: @Sendable (IngestEvent) -> Void) async throws -> IngestOutcome {
        observer(.phase(file, .hashing))
        let (hash, size) = try Self.sha256(of: file)
        let existing = try await store.document(path: file.path, in: collection.id)
        if let existing, existing.contentHash == hash { return .unchanged(existing) }
        if let twin = try await store.document(contentHash: hash, in: collection.id), twin.path != file.path {
            return .duplicate(of: twin.path)
        }

        var timings = PhaseTimings()
        let clock = ContinuousClock()
        observer(.phase(file, .extracting))
        var document: ExtractedDocument!
        timings.extract = try await clock.measure { document = try await extractor.extract(file) }

        observer(.phase(file, .chunking))
        var chunks: [ChunkDraft] = []
        timings.chunk = clock.measure { chunks = chunker.chunks(of: document) }
        guard !chunks.isEmpty else { throw IngestFileError.noText }

        observer(.phase(file, .embedding))
        var vectors: [[Float]] = []
        timings.embed = try await clock.measure {
            for start in stride(from: 0, to: chunks.count, by: embeddingBatch) {
                try Task.checkCancellation()
                let batch = chunks[start..<min(chunks.count, start + embeddingBatch)].map { embeddingText(of: $0.text, headingPath: $0.headingPath) }
                vectors += try await embedder.embed(batch, options: EmbeddingOptions()).vectors
            }
        }
        let dimension = vectors.first?.count ?? 0
        if let stored = collection.embeddingModel, let storedDimension = collection.dimension {
            guard stored == embeddingModel, storedDimension == dimension else {
                throw KnowledgeError.embeddingMismatch(collection: collection.name, stored: stored, storedDimension: storedDimension, current: embeddingModel, currentDimension: dimension)
            }
        } else {
            try await store.setEmbedding(model: embeddingModel, dimension: dimension, for: collection.id)
            collection.embeddingModel = embeddingModel
            collection.dimension = dimension
        }

        observer(.phase(file, .indexing))
        let draft = DocumentDraft(
            collectionID: collection.id, path: file.path, title: document.title, format: document.format, contentHash: hash,
            byteCount: size, pageCount: document.pageCount, ocrConfidence: document.ocrConfidence, warnings: document.warnings, timings: timings
        )
        let indexStart = clock.now
        var saved = try await store.save(draft, chunks: chunks, embeddings: vectors, replacing: existing?.id)
        saved.timings.index = clock.now - indexStart
        try await store.setIndexTime(saved.timings.index, for: saved.id)
        return existing == nil ? .added(saved) : .replaced(saved)
    }

    /// Re-embeds every chunk of a collection with the current embedder and records the new model.
    ///
    /// Each document's vectors are replaced in one transaction; the collection's model is updated
    /// last, so an interrupted reindex is finished by running it again.
    public func reindex(collection name: String, progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> (documents: Int, chunks: Int) {
        guard let collection = try await store.collection(named: name) else { throw KnowledgeError.unknownCollection(name) }
        let documents = try await store.documents(in: collection.id)
        var chunkCount = 0
        var dimension = collection.dimension ?? 0
        for (index, document) in documents.enumerated() {
            try Task.checkCancellation()
            let chunks = try await store.chunks(of: document.id)
            var vectors: [(Int64, [Float])] = []
            for start in stride(from: 0, to: chunks.count, by: embeddingBatch) {
                let batch = Array(chunks[start..<min(chunks.count, start + embeddingBatch)])
                let embedded = try await embedder.embed(batch.map { embeddingText(of: $0.text, headingPath: $0.headingPath) }, options: EmbeddingOptions()).vectors
                vectors += zip(batch.map(\.id), embedded).map { ($0, $1) }
            }
            dimension = vectors.first?.1.count ?? dimension
            try await store.replaceEmbeddings(vectors.map { (chunkID: $0.0, vector: $0.1) })
            chunkCount += chunks.count
            progress(index + 1, documents.count)
        }
        try await store.setEmbedding(model: embeddingModel, dimension: dimension, for: collection.id)
        return (documents.count, chunkCount)
    }

    /// Streams the file through SHA-256.
    static func sha256(of file: URL) throws -> (String, Int64) {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        var size: Int64 = 0
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            hasher.update(data: chunk)
            size += Int64(chunk.count)
        }
        return (hasher.finalize().map { String(format: "%02x", $0) }.joined(), size)
    }

    static func describe(_ error: any Error) -> String {
        var text = error.localizedDescription
        if let hint = (error as? LocalizedError)?.recoverySuggestion { text += " \(hint)" }
        return text
    }
}

/// Problems with one file that are not the extractor's.
public enum IngestFileError: Error, LocalizedError, Equatable {
    case noText

    public var errorDescription: String? {
        switch self {
        case .noText: "No text was found in the file."
        }
    }
}

extension KnowledgeError: RemedyProviding {
    /// Re-embed a collection, or look at the documents.
    public var remedy: Remedy? {
        switch self {
        case .embeddingMismatch(let collection, _, _, _, _): .reindex(collection: collection)
        case .unknownCollection, .unknownDocument, .collectionExists: .listDocuments
        case .invalidCollectionName: nil
        }
    }
}
