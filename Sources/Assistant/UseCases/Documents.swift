public import Foundation
public import Knowledge
import SibylCore

/// A document with the name of its collection.
public struct DocumentListing: Sendable {
    public var document: StoredDocument
    public var collection: String

    package init(document: StoredDocument, collection: String) {
        self.document = document
        self.collection = collection
    }
}

/// One document in detail: its statistics and passages.
public struct DocumentDetails: Sendable {
    public var document: StoredDocument
    public var collection: String
    public var passages: [StoredChunk]

    package init(document: StoredDocument, collection: String, passages: [StoredChunk]) {
        self.document = document
        self.collection = collection
        self.passages = passages
    }
}

/// Totals of one collection.
public struct CollectionStatistics: Sendable {
    public var collection: KnowledgeCollection
    public var documents: Int
    public var pages: Int
    public var tokens: Int
    public var passages: Int
    public var failures: Int
    public var timings: PhaseTimings
    /// Where its vectors are searched: nil in the knowledge base itself; else the Pinecone
    /// namespace and how many vectors it holds (Pinecone's count, which may lag a write).
    public var pinecone: (namespace: String, vectors: Int?)?

    package init(collection: KnowledgeCollection, documents: Int, pages: Int, tokens: Int, passages: Int, failures: Int, timings: PhaseTimings) {
        self.collection = collection
        self.documents = documents
        self.pages = pages
        self.tokens = tokens
        self.passages = passages
        self.failures = failures
        self.timings = timings
    }
}

/// What adding documents did, with the inputs that named no file.
public struct DocumentAddition: Sendable {
    public var collection: String
    public var summary: IngestSummary
    /// Inputs that matched no file, with why.
    public var problems: [(input: String, reason: String)]

    package init(collection: String, summary: IngestSummary, problems: [(input: String, reason: String)]) {
        self.collection = collection
        self.summary = summary
        self.problems = problems
    }
}

/// A file received through an upload.
public struct UploadedFile: Sendable {
    /// The name the client gave it (only its last path component is used).
    public var filename: String
    public var data: Data

    public init(filename: String, data: Data) {
        self.filename = filename
        self.data = data
    }
}

extension UploadedFile {
    /// A file or folder name that stays inside its directory: the last path component, without
    /// control characters, never empty, `.` or `..`.
    package static func safeName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        // Control characters (NUL among them) and format characters (bidirectional overrides that
        // make "evil\u{202E}fdp.exe" read as "evilexe.pdf", zero-width joiners) are dropped.
        let cleaned = String(last.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F && $0.properties.generalCategory != .format }.map(Character.init))
            .trimmingCharacters(in: .whitespaces)
        if cleaned.isEmpty || cleaned == "." || cleaned == ".." { return "upload" }
        return String(cleaned.prefix(200))
    }
}
