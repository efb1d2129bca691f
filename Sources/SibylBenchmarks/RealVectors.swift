import ArgumentParser
import Crypto
import Foundation
import LocalEngines
import SibylCore
import TextEmbedding

/// Real sentence-embedding vectors for `stores`: all-MiniLM-L6-v2's vectors of a text file's
/// passages (one per line), embedded by Sibyl's MiniLM once and kept beside the file, so that the
/// stores are compared on what a knowledge base holds rather than on generated vectors.
enum RealVectors {
    /// The vectors of the first `count + queries` lines: every (count + queries) / queries-th line
    /// is a query, so that the queries come from every part of the file, and the others are the
    /// collection (the two never overlap).
    static func load(passagesAt path: String, count: Int, queries: Int) async throws -> VectorBenchmarkData {
        let file = URL(fileURLWithPath: path)
        let contents: Data
        do { contents = try Data(contentsOf: file) } catch {
            throw ValidationError("cannot read \(path): \(error.localizedDescription)")
        }
        let lines = String(decoding: contents, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: true).map(String.init)
        guard lines.count >= count + queries else {
            throw ValidationError("\(path) has \(lines.count) passages; --count \(count) and --queries \(queries) need \(count + queries)")
        }
        let stride = (count + queries) / max(1, queries)
        let asked = Set((1...max(1, queries)).map { $0 * stride - 1 }.prefix(queries))
        let used = lines.prefix(count + queries).enumerated()
        let chosen = used.filter { !asked.contains($0.offset) }.map(\.element) + used.filter { asked.contains($0.offset) }.map(\.element)
        let dimension = SentenceModel.miniLM.dimension
        // Named by the file's contents and the lines chosen: an edited file is embedded again.
        let digest = SHA256.hash(data: contents).prefix(8).map { String(format: "%02x", $0) }.joined()
        let cache = file.deletingLastPathComponent().appendingPathComponent("\(file.lastPathComponent).minilm-\(digest)-\(count)-\(queries).f32")
        let vectors: [Float]
        if let kept = try? Data(contentsOf: cache), kept.count == chosen.count * dimension * MemoryLayout<Float>.size {
            say("reusing the MiniLM vectors in \(cache.path)")
            vectors = kept.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        } else {
            vectors = try await embed(chosen)
            try vectors.withUnsafeBytes { try Data($0).write(to: cache, options: .atomic) }
            say("kept the vectors in \(cache.path)")
        }
        let split = count * dimension
        return VectorBenchmarkData(kind: .clustered, dimension: dimension, base: Array(vectors[..<split]), queries: Array(vectors[split...]))
    }

    /// Embeds in batches, saying how far it has got.
    private static func embed(_ texts: [String]) async throws -> [Float] {
        let embedder = try SentenceEmbedder(modelDirectory: EngineLayout().miniLMDirectory)
        say("embedding \(texts.count) passages with \(SentenceModel.miniLM.name) (\(embedder.backendDescription), \(embedder.threads) threads) …")
        let clock = ContinuousClock()
        let start = clock.now
        var vectors: [Float] = []
        vectors.reserveCapacity(texts.count * SentenceModel.miniLM.dimension)
        let batch = 256
        for first in stride(from: 0, to: texts.count, by: batch) {
            let result = try await embedder.embed(Array(texts[first..<min(first + batch, texts.count)]), options: EmbeddingOptions())
            for vector in result.vectors { vectors += vector }
            let done = min(first + batch, texts.count)
            if done % (batch * 40) == 0 || done == texts.count {
                let seconds = Statistics.seconds(clock.now - start)
                say(String(format: "  %d of %d in %.0f s (%.0f passages per second)", done, texts.count, seconds, Double(done) / seconds))
            }
        }
        return vectors
    }
}
