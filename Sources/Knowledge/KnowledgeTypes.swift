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

/// What to write for a new document (the store fills in counts and the id).
public struct DocumentDraft: Sendable, Hashable {
    public var collectionID: Int64
    public var path: String
    public var title: String?
    public var format: ExtractedDocument.Format
    public var contentHash: String
    public var byteCount: Int64
    public var pageCount: Int?
    public var ocrConfidence: Double?
    public var warnings: [String]
    public var timings: PhaseTimings
    /// When it was added; now when nil (a copy keeps the original's).
    public var addedAt: Date?

    public init(
        collectionID: Int64, path: String, title: String?, format: ExtractedDocument.Format, contentHash: String, byteCount: Int64,
        pageCount: Int?, ocrConfidence: Double?, warnings: [String], timings: PhaseTimings, addedAt: Date? = nil
    ) {
        self.collectionID = collectionID
        self.path = path
        self.title = title
        self.format = format
        self.contentHash = contentHash
        self.byteCount = byteCount
        self.pageCount = pageCount
        self.ocrConfidence = ocrConfidence
        self.warnings = warnings
        self.timings = timings
        self.addedAt = addedAt
    }
}

/// A document in the knowledge base: complete, with all its chunks and vectors. It is the draft
/// it was written from with what the store gave it (the id, the counts, the date); the draft's
/// fields read as its own (`document.path`).
@dynamicMemberLookup
public struct StoredDocument: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var tokenCount: Int
    public var chunkCount: Int
    public var addedAt: Date
    /// What was written for it, but for the date (`addedAt`, never nil here).
    private var written: DocumentDraft

    public init(
        id: Int64, collectionID: Int64, path: String, title: String?, format: ExtractedDocument.Format, contentHash: String, byteCount: Int64,
        pageCount: Int?, tokenCount: Int, chunkCount: Int, ocrConfidence: Double?, warnings: [String], timings: PhaseTimings, addedAt: Date
    ) {
        self.id = id
        self.tokenCount = tokenCount
        self.chunkCount = chunkCount
        self.addedAt = addedAt
        written = DocumentDraft(
            collectionID: collectionID, path: path, title: title, format: format, contentHash: contentHash, byteCount: byteCount,
            pageCount: pageCount, ocrConfidence: ocrConfidence, warnings: warnings, timings: timings
        )
    }

    /// What to write to store it again (a copy keeps its date).
    public var draft: DocumentDraft {
        var draft = written
        draft.addedAt = addedAt
        return draft
    }

    /// The draft's fields: the collection, path, title, format, hash, sizes, OCR confidence, warnings and timings.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<DocumentDraft, Value>) -> Value {
        get { written[keyPath: keyPath] }
        set { written[keyPath: keyPath] = newValue }
    }

    /// The name people know it by.
    public var displayName: String { written.title ?? URL(fileURLWithPath: written.path).lastPathComponent }
}

/// A passage of a document, as stored: the chunker's draft with the ids the store gave it; the
/// draft's fields read as its own (`chunk.text`).
@dynamicMemberLookup
public struct StoredChunk: Sendable, Hashable, Identifiable {
    public var id: Int64
    public var documentID: Int64
    /// Its place in the document, from 0.
    public var ordinal: Int
    /// What the chunker made: the text, its size, page, headings and offsets.
    public var draft: ChunkDraft

    public init(id: Int64, documentID: Int64, ordinal: Int, draft: ChunkDraft) {
        self.id = id
        self.documentID = documentID
        self.ordinal = ordinal
        self.draft = draft
    }

    public init(id: Int64, documentID: Int64, ordinal: Int, text: String, tokenCount: Int, page: Int?, headingPath: [String], startOffset: Int, endOffset: Int) {
        let draft = ChunkDraft(text: text, tokenCount: tokenCount, page: page, headingPath: headingPath, startOffset: startOffset, endOffset: endOffset)
        self.init(id: id, documentID: documentID, ordinal: ordinal, draft: draft)
    }

    /// The draft's fields: text, token count, page, heading path and offsets.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<ChunkDraft, Value>) -> Value {
        get { draft[keyPath: keyPath] }
        set { draft[keyPath: keyPath] = newValue }
    }

    /// Where in the document it is, in words: "page 3", "Install › Linux", or both.
    public var location: String {
        var parts: [String] = []
        if let page = draft.page { parts.append("page \(page)") }
        if !draft.headingPath.isEmpty { parts.append(draft.headingPath.joined(separator: " › ")) }
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
