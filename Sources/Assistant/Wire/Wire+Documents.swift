public import Foundation
public import Knowledge

extension Wire {
    /// Time spent in each phase of adding documents, in milliseconds.
    public struct PhaseTimings: Sendable, Hashable, Codable {
        public var extract: Int
        public var chunk: Int
        public var embed: Int
        public var index: Int

        public init(_ timings: Knowledge.PhaseTimings) {
            extract = timings.extract.milliseconds
            chunk = timings.chunk.milliseconds
            embed = timings.embed.milliseconds
            index = timings.index.milliseconds
        }
    }

    /// A document in the knowledge base.
    public struct Document: Sendable, Hashable, Codable {
        public var id: Int64
        public var collection: String
        public var path: String
        public var title: String
        /// `text`, `markdown`, `html`, `pdf`, `docx` or `image`.
        public var format: String
        public var pages: Int?
        public var tokens: Int
        public var passages: Int
        public var bytes: Int64
        public var ocrConfidence: Double?
        public var sha256: String
        public var warnings: [String]
        public var timingsMs: PhaseTimings
        public var addedAt: Date

        public init(_ document: StoredDocument, collection: String) {
            id = document.id
            self.collection = collection
            path = document.path
            title = document.displayName
            format = document.format.rawValue
            pages = document.pageCount
            tokens = document.tokenCount
            passages = document.chunkCount
            bytes = document.byteCount
            ocrConfidence = document.ocrConfidence
            sha256 = document.contentHash
            warnings = document.warnings
            timingsMs = PhaseTimings(document.timings)
            addedAt = document.addedAt
        }
    }

    /// A passage of a document, in order.
    public struct DocumentPassage: Sendable, Hashable, Codable {
        public var id: Int64
        public var ordinal: Int
        public var tokens: Int
        public var page: Int?
        public var section: [String]
        public var text: String

        public init(_ chunk: StoredChunk) {
            id = chunk.id
            ordinal = chunk.ordinal
            tokens = chunk.tokenCount
            page = chunk.page
            section = chunk.headingPath
            text = chunk.text
        }
    }

    /// One bar of a histogram: how many values fall in `from...to`.
    public struct HistogramBin: Sendable, Hashable, Codable {
        public var from: Int
        public var to: Int
        public var count: Int
    }

    /// A document with its statistics: the passage-size distribution and, when asked, its passages.
    public struct DocumentDetails: Sendable, Hashable, Codable {
        public var document: Document
        /// Passage sizes in tokens, in eight bins.
        public var passageSizes: [HistogramBin]
        public var passages: [DocumentPassage]?

        public init(_ details: Assistant.DocumentDetails, includePassages: Bool) {
            document = Document(details.document, collection: details.collection)
            passageSizes = Self.histogram(details.passages.map(\.tokenCount))
            passages = includePassages ? details.passages.map(DocumentPassage.init) : nil
        }

        /// Values counted in up to `bins` equal bins from the smallest to the largest.
        public static func histogram(_ values: [Int], bins: Int = 8) -> [HistogramBin] {
            guard let low = values.min(), let high = values.max() else { return [] }
            let span = high - low + 1
            let size = max(1, (span + bins - 1) / bins)
            var counts = [Int](repeating: 0, count: (span + size - 1) / size)
            for value in values { counts[(value - low) / size] += 1 }
            return counts.enumerated().map { index, count in
                HistogramBin(from: low + index * size, to: low + (index + 1) * size - 1, count: count)
            }
        }
    }

    /// What adding documents did.
    public struct IngestReport: Sendable, Hashable, Codable {
        /// A file whose content is already in the collection under another path.
        public struct Duplicate: Sendable, Hashable, Codable {
            public var path: String
            public var of: String
        }

        /// A file that could not be added, with why.
        public struct Failure: Sendable, Hashable, Codable {
            public var path: String
            public var error: String
        }

        /// An input that named no file.
        public struct Problem: Sendable, Hashable, Codable {
            public var input: String
            public var reason: String
        }

        public var collection: String
        public var added: [Document]
        public var updated: [Document]
        public var unchanged: [String]
        public var duplicates: [Duplicate]
        public var failed: [Failure]
        public var problems: [Problem]
        public var pages: Int
        public var passages: Int
        public var seconds: Double
        public var timingsMs: PhaseTimings

        public init(_ addition: DocumentAddition) {
            let summary = addition.summary
            collection = addition.collection
            added = summary.added.map { Document($0, collection: addition.collection) }
            updated = summary.replaced.map { Document($0, collection: addition.collection) }
            unchanged = summary.unchanged.map(\.path)
            duplicates = summary.duplicates.map { Duplicate(path: $0.path, of: $0.of) }
            failed = summary.failed.map { Failure(path: $0.path, error: $0.error) }
            problems = addition.problems.map { Problem(input: $0.input, reason: $0.reason) }
            pages = summary.pages
            passages = summary.chunks
            seconds = Double(summary.elapsed.milliseconds) / 1000
            timingsMs = PhaseTimings(summary.timings)
        }
    }

    /// A file that could not be added, as remembered.
    public struct DocumentFailure: Sendable, Hashable, Codable {
        public var path: String
        public var error: String
        public var failedAt: Date

        public init(_ failure: IngestFailure) {
            path = failure.path
            error = failure.error
            failedAt = failure.failedAt
        }
    }

    /// Totals of one collection.
    public struct CollectionStatistics: Sendable, Hashable, Codable {
        public var collection: String
        public var embeddingModel: String?
        public var dimension: Int?
        public var documents: Int
        public var pages: Int
        public var tokens: Int
        public var passages: Int
        public var failures: Int
        public var timingsMs: PhaseTimings
        public var createdAt: Date
        /// `embedded` (searched in the knowledge base) or `pinecone`.
        public var vectorStore: String
        /// With Pinecone: the collection's namespace and how many vectors it holds there.
        public var namespace: String?
        public var vectorCount: Int?

        public init(_ statistics: Assistant.CollectionStatistics) {
            collection = statistics.collection.name
            embeddingModel = statistics.collection.embeddingModel
            dimension = statistics.collection.dimension
            documents = statistics.documents
            pages = statistics.pages
            tokens = statistics.tokens
            passages = statistics.passages
            failures = statistics.failures
            timingsMs = PhaseTimings(statistics.timings)
            createdAt = statistics.collection.createdAt
            vectorStore = statistics.pinecone == nil ? "embedded" : "pinecone"
            namespace = statistics.pinecone?.namespace
            vectorCount = statistics.pinecone == nil ? statistics.passages : statistics.pinecone?.vectors
        }
    }

    /// Progress of adding documents, as the HTTP API streams it.
    public struct IngestProgress: Sendable, Hashable, Codable {
        /// `started`, `file`, `phase` or `fileDone`.
        public var type: String
        public var files: Int?
        public var index: Int?
        public var file: String?
        public var phase: String?
        /// For `fileDone`: `added`, `updated`, `unchanged`, `duplicate` or `failed`.
        public var outcome: String?
        public var error: String?

        public init(_ event: IngestEvent) {
            switch event {
            case .started(let files):
                type = "started"
                self.files = files
            case .file(let url, let index, let total):
                type = "file"
                file = url.lastPathComponent
                self.index = index
                files = total
            case .phase(let url, let phase):
                type = "phase"
                file = url.lastPathComponent
                self.phase = phase.rawValue
            case .finished(let url, let outcome):
                type = "fileDone"
                file = url.lastPathComponent
                switch outcome {
                case .added: self.outcome = "added"
                case .replaced: self.outcome = "updated"
                case .unchanged: self.outcome = "unchanged"
                case .duplicate: self.outcome = "duplicate"
                case .failed(let error):
                    self.outcome = "failed"
                    self.error = error
                }
            }
        }
    }
}
