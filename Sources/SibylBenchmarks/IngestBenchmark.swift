import ArgumentParser
import DocumentExtraction
import Foundation
import Knowledge
import LocalEngines
import SibylCore
import TextEmbedding

/// `sibyl-bench ingest`: the whole knowledge-base pipeline on generated PDFs, with the local embedder.
struct IngestBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ingest",
        abstract: "End-to-end ingest (extract, chunk, embed with the local MiniLM or MPNet, index) of ≥ 1,000 PDF pages: pages/s and the phase breakdown."
    )

    @Option(help: "The local embedder: minilm (all-MiniLM-L6-v2, the default) or mpnet (all-mpnet-base-v2, embeddings-large).")
    var model = "minilm"

    @Option(help: "PDF files to generate.") var files = 20
    @Option(help: "Pages per file.") var pagesPerFile = 50

    func validate() throws {
        guard ["minilm", "mpnet"].contains(model) else { throw ValidationError("--model must be minilm or mpnet") }
    }

    func run() async throws {
        let sentenceModel: SentenceModel = model == "mpnet" ? .mpnet : .miniLM
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-ingest-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        print("Writing \(files) PDFs of \(pagesPerFile) pages …")
        let inputs = try (0..<files).map { index in
            let file = scratch.appendingPathComponent("document-\(index + 1).pdf")
            try PDFExtractionBenchmark.SamplePDF.make(pages: pagesPerFile, seed: UInt64(100 + index)).write(to: file)
            return file
        }
        let embedder = try SentenceEmbedder(modelDirectory: EngineLayout().sentenceModelDirectory(sentenceModel.name), model: sentenceModel)
        let store = try KnowledgeStore(path: scratch.appendingPathComponent("knowledge.sqlite").path)
        let ingestor = Ingestor(
            store: store,
            extractor: DocumentExtractor(options: .init(ocr: false)),
            embedder: embedder,
            embeddingModel: sentenceModel.name,
            chunker: Chunker(counter: embedder.tokenizer, limitTokens: sentenceModel.maxTokens - 2)
        )
        print("Ingesting with \(sentenceModel.name) (\(embedder.backendDescription), \(embedder.threads) threads) …")
        let summary = try await ingestor.ingest(inputs, collection: "bench")
        guard summary.failed.isEmpty else { throw BenchmarkFailure(message: "failed: \(summary.failed.map(\.error))") }
        let seconds = Double(summary.elapsed.milliseconds) / 1000
        let timings = summary.timings
        let tokens = summary.added.reduce(0) { $0 + $1.tokenCount }
        print(String(format: "%d pages, %d passages, %d tokens in %.2f s: %.1f pages/s, %.0f tokens/s", summary.pages, summary.chunks, tokens, seconds, Double(summary.pages) / seconds, Double(tokens) / seconds))
        let total = Double(timings.total.milliseconds)
        for (name, duration) in [("extract", timings.extract), ("chunk", timings.chunk), ("embed", timings.embed), ("index", timings.index)] {
            let ms = Double(duration.milliseconds)
            print("  " + name.padding(toLength: 9, withPad: " ", startingAt: 0) + String(format: "%8.2f s  %5.1f %%", ms / 1000, total > 0 ? ms / total * 100 : 0))
        }
        let other = seconds - total / 1000
        print("  other    " + String(format: "%8.2f s  (hashing, bookkeeping)", max(0, other)))
    }
}
