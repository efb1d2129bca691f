import Foundation
import SibylCore
import TestFixtures
import Testing
import TextEmbedding

/// Texts of very different lengths (2 to 256 tokens), in no particular order.
private func mixedTexts(count: Int) -> [String] {
    let words = """
        Sibyl grounds its answers in the documents you give it, reading PDF files, Word documents, \
        web pages and scanned images, and it cites the passages it used so that every claim can be \
        checked against its source by the person who asked the question in the first place.
        """.split(separator: " ")
    return (0..<count).map { index in
        let length = [1, 40, 7, 300, 15, 120, 3, 64][index % 8] + index % 5
        return (0..<length).map { words[($0 + index) % words.count] }.joined(separator: " ")
    }
}

extension Array {
    func asyncMap<T>(_ transform: (Element) async throws -> T) async rethrows -> [T] {
        var results: [T] = []
        for element in self { results.append(try await transform(element)) }
        return results
    }
}

@Suite(.timeLimit(.minutes(10)), .enabled(if: InstalledModel.runs, InstalledModel.skipReason))
struct SentenceEmbedderTests {
    @Test func emptyInputGivesNoVectors() async throws {
        let result = try await InstalledModel.embedder().embed([], options: EmbeddingOptions())
        #expect(result.vectors.isEmpty)
        #expect(result.promptTokens == 0)
        #expect(result.model == "all-MiniLM-L6-v2")
    }

    @Test(arguments: InstalledModel.backends)
    func batchesKeepTheInputOrderAcrossMixedLengths(backend: SentenceEmbedder.Backend) async throws {
        let embedder = try InstalledModel.embedder(backend)
        let texts = mixedTexts(count: 40)
        let lengths = texts.map { embedder.tokenize($0).count }
        // Enough tokens for the path that runs whole packs on parallel threads (over 2 × 512).
        #expect(lengths.reduce(0, +) > 2 * 512)
        #expect(lengths.max() == SentenceModel.miniLM.maxTokens && lengths.min()! < 8)

        let batch = try await embedder.embed(texts, options: EmbeddingOptions())
        #expect(batch.promptTokens == lengths.reduce(0, +))
        for (index, text) in texts.enumerated() {
            let single = try await embedder.embed([text], options: EmbeddingOptions()).vectors[0]
            #expect(cosine(batch.vectors[index], single) > 0.99999, "text \(index) (\(lengths[index]) tokens)")
        }
    }

    @Test func smallBatchesKeepTheInputOrder() async throws {
        let embedder = try InstalledModel.embedder()
        let texts = ["a short one", String(repeating: "a much longer text about nothing much ", count: 12), "mid-sized text here"]
        let batch = try await embedder.embed(texts, options: EmbeddingOptions())
        for (index, text) in texts.enumerated() {
            let single = try await embedder.embed([text], options: EmbeddingOptions()).vectors[0]
            #expect(cosine(batch.vectors[index], single) > 0.99999)
        }
        #expect(cosine(batch.vectors[0], batch.vectors[1]) < 0.99)
    }

    @Test func concurrentCallsGetTheirOwnVectors() async throws {
        let embedder = try InstalledModel.embedder()
        let texts = mixedTexts(count: 8)
        let expected = try await embedder.embed(texts, options: EmbeddingOptions()).vectors
        let results = try await withThrowingTaskGroup(of: (Int, [Float]).self) { group in
            for round in 0..<4 {
                for (index, text) in texts.enumerated() {
                    group.addTask { (index, try await embedder.embed([text], options: EmbeddingOptions()).vectors[0]) }
                }
                if round == 0 {
                    group.addTask { (-1, try await embedder.embed(texts, options: EmbeddingOptions()).vectors[0]) }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 4 * texts.count + 1)
        for (index, vector) in results {
            #expect(cosine(vector, expected[max(index, 0)]) > 0.99999)
        }
    }

    @Test func vectorsHaveUnitLength() async throws {
        let embedder = try InstalledModel.embedder()
        let result = try await embedder.embed(mixedTexts(count: 12) + ["", " ", "🙂"], options: EmbeddingOptions())
        for vector in result.vectors {
            #expect(vector.count == 384)
            #expect(abs(norm(vector) - 1) < 1e-5)
        }
    }

    @Test(arguments: InstalledModel.backends)
    func threadCountDoesNotChangeTheVectors(backend: SentenceEmbedder.Backend) async throws {
        let texts = mixedTexts(count: 24)
        let one = try SentenceEmbedder(modelDirectory: InstalledModel.directory, threads: 1, backend: backend)
        let three = try SentenceEmbedder(modelDirectory: InstalledModel.directory, threads: 3, backend: backend)
        let a = try await one.embed(texts, options: EmbeddingOptions())
        let b = try await three.embed(texts, options: EmbeddingOptions())
        for (x, y) in zip(a.vectors, b.vectors) {
            #expect(cosine(x, y) > 0.99999)
        }
    }

    @Test func backendsAgree() async throws {
        let texts = mixedTexts(count: 16)
        let results = try await InstalledModel.backends.asyncMap { backend in
            try await InstalledModel.embedder(backend).embed(texts, options: EmbeddingOptions()).vectors
        }
        for vectors in results.dropFirst() {
            for (x, y) in zip(results[0], vectors) {
                #expect(cosine(x, y) > 0.99999)
            }
        }
        #expect(try InstalledModel.embedder(.blas).backend == .blas)
        #expect(try InstalledModel.embedder().backend != .automatic)
    }

    @Test func acceptsItsOwnModelName() async throws {
        let embedder = try InstalledModel.embedder()
        for name in ["all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2"] {
            let result = try await embedder.embed(["hi"], options: EmbeddingOptions(model: name, dimensions: 384))
            #expect(result.vectors.count == 1)
        }
    }

    @Test func rejectsOtherModelsAndDimensions() async throws {
        let embedder = try InstalledModel.embedder()
        await #expect(throws: MiniLMError.unsupportedModel("text-embedding-3-small", runs: "all-MiniLM-L6-v2")) {
            try await embedder.embed(["hi"], options: EmbeddingOptions(model: "text-embedding-3-small"))
        }
        await #expect(throws: MiniLMError.unsupportedDimensions(256, model: "all-MiniLM-L6-v2", makes: 384)) {
            try await embedder.embed(["hi"], options: EmbeddingOptions(dimensions: 256))
        }
    }

    @Test func cancellationStopsALongRequest() async throws {
        let embedder = try InstalledModel.embedder()
        let texts = Array(repeating: mixedTexts(count: 8)[5], count: 3000)
        let task = Task { try await embedder.embed(texts, options: EmbeddingOptions()) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func tokenizeTruncatesTo256() throws {
        let embedder = try InstalledModel.embedder()
        let ids = embedder.tokenize(String(repeating: "word ", count: 1000))
        #expect(ids.count == SentenceModel.miniLM.maxTokens)
        #expect(ids.first == 101 && ids.last == 102)
    }
}

/// Loading errors, with the real weights where a test needs a valid file.
@Suite(.timeLimit(.minutes(10)))
struct MiniLMLoadingTests {
    @Test func missingFilesAreNamed() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: MiniLMError.missingFile(path: directory.appendingPathComponent("model.safetensors").path)) {
            try SentenceEmbedder(modelDirectory: directory)
        }
        #expect(!SentenceModel.miniLM.isInstalled(at: directory))
    }

    @Test func modelDirectoryFollowsTheEnvironment() {
        #expect(SentenceModel.miniLM.defaultDirectory(environment: ["SIBYL_MINILM_DIR": "/m"]).path == "/m")
        #expect(SentenceModel.miniLM.defaultDirectory(environment: ["SIBYL_ENGINES": "/e", "HOME": "/h"]).path
            == "/e/models/all-MiniLM-L6-v2")
        #expect(SentenceModel.miniLM.defaultDirectory(environment: ["HOME": "/h"]).path
            == "/h/.cache/sibyl/engines/models/all-MiniLM-L6-v2")
    }

    @Test func weightsOfAnotherShapeAreRejected() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try SafeTensorsWriter.write(
            [("embeddings.word_embeddings.weight", "F32", [4, 8], Array(repeating: Float(0), count: 32))],
            to: directory.appendingPathComponent("model.safetensors")
        )
        try "[PAD]\n[UNK]\n[CLS]\n[SEP]\n".write(to: directory.appendingPathComponent("vocab.txt"), atomically: true, encoding: .utf8)
        #expect(throws: MiniLMError.unexpectedShape(tensor: "embeddings.word_embeddings.weight", expected: [30522, 384], found: [4, 8], model: "all-MiniLM-L6-v2")) {
            try SentenceEmbedder(modelDirectory: directory)
        }
    }

    @Test func corruptWeightsAreReported() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("not a model".utf8).write(to: directory.appendingPathComponent("model.safetensors"))
        try "[PAD]\n[UNK]\n[CLS]\n[SEP]\n".write(to: directory.appendingPathComponent("vocab.txt"), atomically: true, encoding: .utf8)
        #expect {
            try SentenceEmbedder(modelDirectory: directory)
        } throws: { error in
            guard case MiniLMError.invalidWeights(.invalidHeader) = error else { return false }
            return true
        }
    }

    @Test(.enabled(if: InstalledModel.runs, InstalledModel.skipReason))
    func aVocabularyFromAnotherModelIsRejected() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try FileManager.default.createSymbolicLink(
            at: directory.appendingPathComponent("model.safetensors"),
            withDestinationURL: InstalledModel.directory.appendingPathComponent("model.safetensors")
        )
        try "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\n".write(to: directory.appendingPathComponent("vocab.txt"), atomically: true, encoding: .utf8)
        #expect(throws: MiniLMError.vocabularyMismatch(vocabularyTokens: 5, embeddingRows: 30522, model: "all-MiniLM-L6-v2")) {
            try SentenceEmbedder(modelDirectory: directory)
        }
        try "[PAD]\nhello\n".write(to: directory.appendingPathComponent("vocab.txt"), atomically: true, encoding: .utf8)
        #expect(throws: MiniLMError.self) {
            try SentenceEmbedder(modelDirectory: directory)
        }
    }
}
