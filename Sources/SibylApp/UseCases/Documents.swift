public import Assistant
public import Foundation
public import Knowledge
import PineconeVectors
public import SibylCore

extension SibylRuntime.Documents {
    /// Adds files, folders (recursively) or glob patterns to a collection; unchanged files are
    /// skipped, changed ones replaced, and a file that fails does not stop the others. Scans are
    /// read in `ocrLanguages`, else in `docs.ocr_languages`.
    public func add(
        paths: [String], collection: String? = nil, ocrLanguages: OCRLanguages? = nil,
        relativeTo base: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
        progress: @Sendable (IngestEvent) -> Void = { _ in }
    ) async throws -> DocumentAddition {
        let found = FileDiscovery.files(from: paths, relativeTo: base)
        guard !found.files.isEmpty else { throw AssistantError.noDocumentsFound(paths) }
        var addition = try await add(found.files, collection: collection, ocrLanguages: ocrLanguages, progress: progress)
        addition.problems = found.problems
        return addition
    }

    /// Adds files to a collection.
    public func add(
        _ files: [URL], collection: String? = nil, ocrLanguages: OCRLanguages? = nil, progress: @Sendable (IngestEvent) -> Void = { _ in }
    ) async throws -> DocumentAddition {
        let name = collection ?? runtime.defaultCollection
        let summary = try await runtime.ingestor(ocrLanguages: ocrLanguages).ingest(files, collection: name, observer: progress)
        runtime.events.publish(.documents(collection: name))
        await runtime.log(summary.failed.isEmpty ? .info : .warning, .docsAdd, Self.describe(summary, collection: name), details: IngestLogDetails(summary))
        return DocumentAddition(collection: name, summary: summary, problems: [])
    }

    /// Adds uploaded files: each is kept under the data directory (`documents/COLLECTION/NAME`),
    /// so uploading a file of the same name again replaces the document when it changed.
    public func addUploads(
        _ uploads: [UploadedFile], collection: String? = nil, ocrLanguages: OCRLanguages? = nil, progress: @Sendable (IngestEvent) -> Void = { _ in }
    ) async throws -> DocumentAddition {
        let name = collection ?? runtime.defaultCollection
        let directory = runtime.dataPaths.uploadedDocuments.appendingPathComponent(UploadedFile.safeName(name), isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var files: [URL] = []
        for upload in uploads {
            let file = directory.appendingPathComponent(UploadedFile.safeName(upload.filename))
            try upload.data.write(to: file, options: .atomic)
            files.append(file)
        }
        return try await add(files, collection: name, ocrLanguages: ocrLanguages, progress: progress)
    }

    /// The collections, by name.
    public func collections() async throws -> [KnowledgeCollection] {
        try await runtime.knowledgeBase().collections()
    }

    /// Removes a collection and its documents, document by document so that the loaded search
    /// index follows (and, with Pinecone, its namespace).
    public func deleteCollection(_ name: String) async throws {
        let store = try await runtime.knowledgeBase()
        guard let found = try await store.collection(named: name) else { throw KnowledgeError.unknownCollection(name) }
        for document in try await store.documents(in: found.id) { try await store.removeDocument(document.id) }
        try await store.deleteCollection(found.id)
        runtime.events.publish(.documents(collection: found.name))
        await runtime.log(.info, .docsRemove, "removed the collection \(found.name)")
    }

    /// Gives a collection another name, keeping its documents (and, with Pinecone, moving its
    /// vectors to the new name's namespace).
    @discardableResult
    public func renameCollection(_ name: String, to newName: String) async throws -> KnowledgeCollection {
        let newName = try Self.checkedCollectionName(newName)
        let store = try await runtime.knowledgeBase()
        guard let found = try await store.collection(named: name) else { throw KnowledgeError.unknownCollection(name) }
        try await store.renameCollection(found.id, to: newName)
        runtime.events.publish(.documents(collection: found.name))
        runtime.events.publish(.documents(collection: newName))
        await runtime.log(.info, .docsRename, "renamed the collection \(found.name) to \(newName)")
        return try await store.collection(named: newName) ?? found
    }

    /// A collection name as people may give one: 1 to 64 letters, digits, spaces, `-`, `_` or `.`,
    /// trimmed.
    static func checkedCollectionName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        let allowed = trimmed.unicodeScalars.allSatisfy { CharacterSet.alphanumerics.contains($0) || " -_.".unicodeScalars.contains($0) }
        guard (1...64).contains(trimmed.count), allowed else { throw KnowledgeError.invalidCollectionName(name) }
        return trimmed
    }

    /// Documents, in one collection or all.
    public func list(in collection: String? = nil) async throws -> [DocumentListing] {
        let store = try await runtime.knowledgeBase()
        let collections = try await store.collections()
        let names = Dictionary(uniqueKeysWithValues: collections.map { ($0.id, $0.name) })
        var chosen: Int64?
        if let collection {
            guard let found = collections.first(where: { $0.name.lowercased() == collection.lowercased() }) else { throw KnowledgeError.unknownCollection(collection) }
            chosen = found.id
        }
        return try await store.documents(in: chosen).map { DocumentListing(document: $0, collection: names[$0.collectionID] ?? "") }
    }

    /// Files that could not be added, in one collection or all.
    public func failures(in collection: String? = nil) async throws -> [IngestFailure] {
        let store = try await runtime.knowledgeBase()
        var id: Int64?
        if let collection {
            guard let found = try await store.collection(named: collection) else { throw KnowledgeError.unknownCollection(collection) }
            id = found.id
        }
        return try await store.failures(in: id)
    }

    /// The document a user named: its id, or a piece of its file name or title matching one document.
    public func document(_ reference: String) async throws -> StoredDocument {
        let store = try await runtime.knowledgeBase()
        if let id = Int64(reference), let document = try await store.document(id: id) { return document }
        let matches = try await store.documents().filter {
            $0.path.localizedCaseInsensitiveContains(reference) || ($0.title?.localizedCaseInsensitiveContains(reference) ?? false)
        }
        guard let first = matches.first else { throw KnowledgeError.unknownDocument(reference) }
        guard matches.count == 1 else {
            throw AssistantError.ambiguousDocument(reference, candidates: matches.prefix(5).map { "\($0.id) \($0.displayName)" })
        }
        return first
    }

    /// The document with this id.
    public func document(id: Int64) async throws -> StoredDocument {
        guard let document = try await runtime.knowledgeBase().document(id: id) else { throw KnowledgeError.unknownDocument(String(id)) }
        return document
    }

    /// A document with its passages, by what the user named.
    public func details(_ reference: String) async throws -> DocumentDetails {
        try await details(id: try await document(reference).id)
    }

    /// A document with its passages.
    public func details(id: Int64) async throws -> DocumentDetails {
        let store = try await runtime.knowledgeBase()
        let document = try await document(id: id)
        let collection = try await store.collections().first { $0.id == document.collectionID }?.name ?? ""
        return DocumentDetails(document: document, collection: collection, passages: try await store.chunks(of: document.id))
    }

    /// Totals per collection.
    public func statistics() async throws -> [CollectionStatistics] {
        let store = try await runtime.knowledgeBase()
        let pinecone = store as? PineconeKnowledgeBase
        // Pinecone's counts are for showing: when they cannot be read, the rest still is.
        let counts = try? await pinecone?.vectorCounts()
        var statistics: [CollectionStatistics] = []
        for collection in try await store.collections() {
            let documents = try await store.documents(in: collection.id)
            var entry = CollectionStatistics(
                collection: collection,
                documents: documents.count,
                pages: documents.reduce(0) { $0 + ($1.pageCount ?? 0) },
                tokens: documents.reduce(0) { $0 + $1.tokenCount },
                passages: documents.reduce(0) { $0 + $1.chunkCount },
                failures: try await store.failures(in: collection.id).count,
                timings: documents.map(\.timings).reduce(PhaseTimings(), +)
            )
            if let pinecone { entry.pinecone = (pinecone.vectors.namespace(for: collection.name), counts?[collection.name]) }
            statistics.append(entry)
        }
        return statistics
    }

    /// Removes a document and everything made from it, by what the user named.
    @discardableResult
    public func remove(_ reference: String) async throws -> StoredDocument {
        try await remove(id: try await document(reference).id)
    }

    /// Removes a document and everything made from it.
    @discardableResult
    public func remove(id: Int64) async throws -> StoredDocument {
        let document = try await document(id: id)
        try await runtime.knowledgeBase().removeDocument(document.id)
        runtime.events.publish(.documents(collection: (try? await runtime.knowledgeBase().collections().first { $0.id == document.collectionID }?.name) ?? ""))
        await runtime.log(.info, .docsRemove, "removed \(document.path)")
        return document
    }

    /// Re-embeds a collection with the current embedding model (after changing it).
    public func reindex(collection: String? = nil, progress: @Sendable (Int, Int) -> Void = { _, _ in }) async throws -> (collection: String, model: String, documents: Int, passages: Int) {
        let name = collection ?? runtime.defaultCollection
        let ingestor = try await runtime.ingestor()
        let (documents, passages) = try await ingestor.reindex(collection: name, progress: progress)
        runtime.events.publish(.documents(collection: name))
        await runtime.log(.info, .docsReindex, "re-embedded \(documents) documents (\(passages) passages) of '\(name)' with \(ingestor.embeddingModel)")
        return (name, ingestor.embeddingModel, documents, passages)
    }

    /// Ranked passages for a query, in one collection, one document, or everywhere.
    public func search(_ query: String, collection: String? = nil, document: String? = nil, mode: SearchMode = .hybrid, limit: Int = 5) async throws -> [SearchResult] {
        let text = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw AssistantError.emptyQuery }
        var documentID: Int64?
        if let document { documentID = try await self.document(document).id }
        return try await runtime.retriever().search(text, mode: mode, collection: collection, documentID: documentID, limit: min(max(limit, 1), 100))
    }

    /// A summary line of an ingest run.
    public static func describe(_ summary: IngestSummary, collection: String) -> String {
        var parts = ["\(summary.added.count) added"]
        if !summary.replaced.isEmpty { parts.append("\(summary.replaced.count) updated") }
        if !summary.unchanged.isEmpty { parts.append("\(summary.unchanged.count) unchanged") }
        if !summary.duplicates.isEmpty { parts.append("\(summary.duplicates.count) duplicates skipped") }
        if !summary.failed.isEmpty { parts.append("\(summary.failed.count) failed") }
        let seconds = String(format: "%.1f s", Double(summary.elapsed.milliseconds) / 1000)
        return "Collection '\(collection)': " + parts.joined(separator: ", ") + " in \(seconds)."
    }
}

/// The log details of an ingest run.
struct IngestLogDetails: Encodable {
    var added: [String]
    var updated: [String]
    var unchanged: Int
    var duplicates: Int
    var failed: [String: String]
    var pages: Int
    var passages: Int
    var seconds: Double

    init(_ summary: IngestSummary) {
        added = summary.added.map(\.path)
        updated = summary.replaced.map(\.path)
        unchanged = summary.unchanged.count
        duplicates = summary.duplicates.count
        failed = Dictionary(summary.failed.map { ($0.path, $0.error) }, uniquingKeysWith: { first, _ in first })
        pages = summary.pages
        passages = summary.chunks
        seconds = Double(summary.elapsed.milliseconds) / 1000
    }
}
