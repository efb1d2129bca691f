import Foundation
import SibylCore
@testable import Knowledge

/// A deterministic embedder for tests: words hashed into 64 dimensions, L2-normalised, so texts
/// sharing words are similar and unrelated texts are nearly orthogonal.
struct HashingEmbedder: Embedder {
    var model = "hashing-64"
    var dimension = 64
    /// Texts embedded so far (to assert batching).
    let calls = CallLog()

    func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult {
        calls.append(texts.count)
        return EmbeddingResult(vectors: texts.map(vector), model: model, promptTokens: nil)
    }

    func vector(_ text: String) -> [Float] {
        var vector = [Float](repeating: 0, count: dimension)
        for word in text.lowercased().split(whereSeparator: { !$0.isLetter && !$0.isNumber }) where word.count > 2 {
            var hash: UInt64 = 1469598103934665603
            for byte in word.utf8 { hash = (hash ^ UInt64(byte)) &* 1099511628211 }
            vector[Int(hash % UInt64(dimension))] += 1
        }
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return norm > 0 ? vector.map { $0 / norm } : vector
    }
}

final class CallLog: @unchecked Sendable {
    private let lock = NSLock()
    private var sizes: [Int] = []
    func append(_ size: Int) { lock.lock(); sizes.append(size); lock.unlock() }
    var batches: [Int] { lock.lock(); defer { lock.unlock() }; return sizes }
}

/// Extracts plain text files as paragraphs, or fails for files named `*.bad`.
struct TextExtractor: DocumentExtracting {
    struct Failure: Error, LocalizedError { var errorDescription: String? { "this file is broken" } }

    func extract(_ file: URL) async throws -> ExtractedDocument {
        if file.pathExtension == "bad" { throw Failure() }
        let text = try String(contentsOf: file, encoding: .utf8)
        let blocks = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }.map { DocumentBlock(kind: .paragraph, text: $0) }
        return ExtractedDocument(format: .text, title: file.deletingPathExtension().lastPathComponent, blocks: blocks)
    }
}

/// A folder of documents for one test.
struct DocumentFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-docs-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    @discardableResult
    func write(_ name: String, _ text: String) throws -> URL {
        let file = url.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: file)
        return file
    }
}

func makeIngestor(_ store: any KnowledgeBase, embedder: HashingEmbedder = HashingEmbedder()) -> Ingestor {
    Ingestor(store: store, extractor: TextExtractor(), embedder: embedder, embeddingModel: embedder.model,
             chunker: Chunker(counter: WordCounter(), limitTokens: 60, targetTokens: 40))
}
