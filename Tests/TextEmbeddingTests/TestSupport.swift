import Foundation
import TestFixtures
import Testing
import TextEmbedding

/// The installed all-MiniLM-L6-v2, for the tests that need the real model. They are skipped when
/// it is absent, unless `SIBYL_REQUIRE_ENGINES=1`, which makes its absence a failure.
enum InstalledModel {
    static let directory = SentenceModel.miniLM.defaultDirectory()
    static let isInstalled = SentenceModel.miniLM.isInstalled(at: directory)
    static let required = ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"
    /// Whether model tests run (and, when the model is missing, fail).
    static let runs = isInstalled || required
    static let skipReason: Comment = "all-MiniLM-L6-v2 is not installed (model.safetensors and vocab.txt in $SIBYL_MINILM_DIR, $SIBYL_ENGINES/models/all-MiniLM-L6-v2 or ~/.cache/sibyl/engines/models/all-MiniLM-L6-v2)"

    /// The backends this machine can run, each of which the model tests cover.
    static let backends = [SentenceEmbedder.Backend.blas, .avx2, .avx512].filter(SentenceEmbedder.isAvailable)

    /// Embedders shared by the tests (loading maps the weights once), by backend.
    private static let shared: [SentenceEmbedder.Backend: Result<SentenceEmbedder, any Error>] = Dictionary(
        uniqueKeysWithValues: ([.automatic] + backends).map { backend in
            (backend, Result { try SentenceEmbedder(modelDirectory: directory, threads: 2, backend: backend) })
        }
    )

    static func embedder(_ backend: SentenceEmbedder.Backend = .automatic) throws -> SentenceEmbedder {
        try shared[backend]!.get()
    }
}

/// `shared/fixtures/minilm-reference.json`: texts with sentence-transformers' token ids and vectors.
struct MiniLMReference: Decodable {
    struct Item: Decodable {
        var text: String
        var input_ids: [Int]
        var embedding: [Float]
    }

    var model: String
    var items: [Item]

    /// The fixture file: `$SIBYL_FIXTURES/minilm-reference.json`, or `shared/fixtures/` in the
    /// nearest directory above this source file that has one.
    static var location: URL? {
        if let directory = ProcessInfo.processInfo.environment["SIBYL_FIXTURES"], !directory.isEmpty {
            return URL(fileURLWithPath: directory).appendingPathComponent("minilm-reference.json")
        }
        return RepositoryFile.locate("shared/fixtures/minilm-reference.json")
    }

    static func load() throws -> MiniLMReference {
        guard let location else { throw FixtureMissing() }
        return try JSONDecoder().decode(MiniLMReference.self, from: Data(contentsOf: location))
    }

    struct FixtureMissing: Error, CustomStringConvertible {
        var description: String { "shared/fixtures/minilm-reference.json not found; set SIBYL_FIXTURES" }
    }
}

func norm(_ vector: [Float]) -> Float {
    vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
}

/// A fresh temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("sibyl-text-embedding-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
