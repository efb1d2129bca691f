import Foundation
import SibylCore

/// A named group of documents sharing one embedding model.
public struct KnowledgeCollection: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var name: String
    /// The embedding model its vectors come from; set by the first ingest.
    public var embeddingModel: String?
    public var dimension: Int?
    public var createdAt: Date

    public init(id: Int64, name: String, embeddingModel: String?, dimension: Int?, createdAt: Date) {
        self.id = id
        self.name = name
        self.embeddingModel = embeddingModel
        self.dimension = dimension
        self.createdAt = createdAt
    }
}

/// Time spent in each phase of ingesting one document.
public struct PhaseTimings: Sendable, Hashable {
    public var extract: Duration
    public var chunk: Duration
    public var embed: Duration
    public var index: Duration

    public init(extract: Duration = .zero, chunk: Duration = .zero, embed: Duration = .zero, index: Duration = .zero) {
        self.extract = extract
        self.chunk = chunk
        self.embed = embed
        self.index = index
    }

    public var total: Duration { extract + chunk + embed + index }

    public static func + (lhs: PhaseTimings, rhs: PhaseTimings) -> PhaseTimings {
        PhaseTimings(extract: lhs.extract + rhs.extract, chunk: lhs.chunk + rhs.chunk, embed: lhs.embed + rhs.embed, index: lhs.index + rhs.index)
    }
}

/// A document in the knowledge base: complete, with all its chunks and vectors.
public struct StoredDocument: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var collectionID: Int64
    /// The absolute path it was read from.
    public var path: String
    public var title: String?
    public var format: ExtractedDocument.Format
    /// SHA-256 of the file's bytes.
    public var contentHash: String
    public var byteCount: Int64
    public var pageCount: Int?
    public var tokenCount: Int
    public var chunkCount: Int
    public var ocrConfidence: Double?
    public var warnings: [String]
    public var timings: PhaseTimings
    public var addedAt: Date

    public init(
        id: Int64, collectionID: Int64, path: String, title: String?, format: ExtractedDocument.Format, contentHash: String, byteCount: Int64,
        pageCount: Int?, tokenCount: Int, chunkCount: Int, ocrConfidence: Double?, warnings: [String], timings: PhaseTimings, addedAt: Date
    ) {
        self.id = id
        self.collectionID = collectionID
        self.path = path
        self.title = title
        self.format = format
        self.contentHash = contentHash
        self.byteCount = byteCount
        self.pageCount = pageCount
        self.tokenCount = tokenCount
        self.chunkCount = chunkCount
        self.ocrConfidence = ocrConfidence
        self.warnings = warnings
        self.timings = timings
        self.addedAt = addedAt
    }

    /// The name people know it by.
    public var displayName: String { title ?? URL(fileURLWithPath: path).lastPathComponent }
}

/// A passage of a document, as stored.
public struct StoredChunk: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var documentID: Int64
    /// Its place in the document, from 0.
    public var ordinal: Int
    public var text: String
    public var tokenCount: Int
    /// The page it starts on, for paginated documents.
    public var page: Int?
    /// The headings it sits under, outermost first.
    public var headingPath: [String]
    /// Character offsets into the document's extracted text.
    public var startOffset: Int
    public var endOffset: Int

    public init(id: Int64, documentID: Int64, ordinal: Int, text: String, tokenCount: Int, page: Int?, headingPath: [String], startOffset: Int, endOffset: Int) {
        self.id = id
        self.documentID = documentID
        self.ordinal = ordinal
        self.text = text
        self.tokenCount = tokenCount
        self.page = page
        self.headingPath = headingPath
        self.startOffset = startOffset
        self.endOffset = endOffset
    }

    /// Where in the document it is, in words: "page 3", "Install › Linux", or both.
    public var location: String {
        var parts: [String] = []
        if let page { parts.append("page \(page)") }
        if !headingPath.isEmpty { parts.append(headingPath.joined(separator: " › ")) }
        return parts.joined(separator: ", ")
    }
}

/// A file that could not be ingested.
public struct IngestFailure: Sendable, Hashable {
    public var collectionID: Int64
    public var path: String
    public var error: String
    public var failedAt: Date

    public init(collectionID: Int64, path: String, error: String, failedAt: Date) {
        self.collectionID = collectionID
        self.path = path
        self.error = error
        self.failedAt = failedAt
    }
}
