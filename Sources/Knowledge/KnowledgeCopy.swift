import Crypto
import Foundation

/// Copies one knowledge base into another (the SQLite files of a data directory into PostgreSQL,
/// or back), document by document, each in one transaction of the destination, and checks each
/// copy against its original: the same passages (text, page, headings, offsets) with the same
/// vectors, bit for bit.
///
/// Nothing is lost when a copy is interrupted: the source is only read, and the destination holds
/// whole documents only. Running it again skips the documents already copied (same path, content
/// and fingerprint) and finishes the rest.
public enum KnowledgeCopy {
    /// What a copy did.
    public struct Report: Sendable, Equatable {
        public var collections = 0
        public var copied = 0
        /// Documents the destination already had, identical.
        public var alreadyThere = 0
        public var passages = 0
        public var failures = 0
        /// Paths whose copy did not match its original (none, unless something is wrong).
        public var mismatches: [String] = []

        public init() {}
    }

    /// Progress: a document about to be copied (`index` counts from 1 within its collection).
    public struct Step: Sendable {
        public var collection: String
        public var path: String
        public var index: Int
        public var of: Int
    }

    /// Copies every collection of `source` into `destination`.
    public static func copy(from source: any KnowledgeBase, to destination: any KnowledgeBase, progress: @Sendable (Step) -> Void = { _ in }) async throws -> Report {
        var report = Report()
        for collection in try await source.collections() {
            try Task.checkCancellation()
            guard let target = try await destination.collection(named: collection.name, create: true) else {
                throw KnowledgeError.unknownCollection(collection.name)
            }
            if let model = collection.embeddingModel, let dimension = collection.dimension {
                if let existing = target.embeddingModel, let existingDimension = target.dimension, existing != model || existingDimension != dimension {
                    throw KnowledgeError.embeddingMismatch(collection: collection.name, stored: existing, storedDimension: existingDimension, current: model, currentDimension: dimension)
                }
                try await destination.setEmbedding(model: model, dimension: dimension, for: target.id)
            }
            report.collections += 1
            // Oldest first, so that the copy lists them in the same order.
            let documents = try await source.documents(in: collection.id).reversed()
            for (index, document) in documents.enumerated() {
                try Task.checkCancellation()
                progress(Step(collection: collection.name, path: document.path, index: index + 1, of: documents.count))
                let original = try await fingerprint(of: document, in: source)
                var replacing: Int64?
                if let there = try await destination.document(path: document.path, in: target.id) {
                    if there.contentHash == document.contentHash, try await fingerprint(of: there, in: destination) == original {
                        report.alreadyThere += 1
                        continue
                    }
                    replacing = there.id
                }
                let chunks = try await source.chunks(of: document.id)
                let vectors = try await source.vectors(of: document.id)
                let embeddings = try chunks.map { chunk in
                    guard let vector = vectors[chunk.id] else { throw CopyError.missingVector(path: document.path, ordinal: chunk.ordinal) }
                    return vector
                }
                var draft = document.draft
                draft.collectionID = target.id
                let saved = try await destination.save(draft, chunks: chunks.map(\.draft), embeddings: embeddings, replacing: replacing)
                if try await fingerprint(of: saved, in: destination) != original { report.mismatches.append(document.path) }
                report.copied += 1
                report.passages += chunks.count
            }
            for failure in try await source.failures(in: collection.id) {
                try await destination.recordFailure(path: failure.path, error: failure.error, in: target.id)
                report.failures += 1
            }
        }
        return report
    }

    /// SHA-256 over what a document is made of: its content hash, then each passage in order (text,
    /// page, headings, offsets, token count) with its vector's bytes.
    public static func fingerprint(of document: StoredDocument, in base: any KnowledgeBase) async throws -> String {
        let chunks = try await base.chunks(of: document.id)
        let vectors = try await base.vectors(of: document.id)
        var hasher = SHA256()
        func add(_ text: String) {
            hasher.update(data: Data(text.utf8))
            hasher.update(data: Data([0]))
        }
        add(document.contentHash)
        for chunk in chunks {
            add(chunk.text)
            add("\(chunk.ordinal) \(chunk.page.map(String.init) ?? "-") \(chunk.startOffset) \(chunk.endOffset) \(chunk.tokenCount)")
            add(chunk.headingPath.joined(separator: "\u{1F}"))
            let vector = vectors[chunk.id] ?? []
            vector.withUnsafeBytes { hasher.update(bufferPointer: $0) }
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// A document the copy cannot take as it is.
public enum CopyError: Error, LocalizedError, Equatable {
    case missingVector(path: String, ordinal: Int)

    public var errorDescription: String? {
        switch self {
        case .missingVector(let path, let ordinal): "Passage \(ordinal) of \(path) has no vector in the source; re-index it there first (sibyl docs reindex)."
        }
    }
}
