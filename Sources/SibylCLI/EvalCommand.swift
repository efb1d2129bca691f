import ArgumentParser
import Assistant
import Foundation
import Knowledge

/// `sibyl eval`: retrieval quality on a BEIR-format set.
struct Eval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure retrieval on a BEIR-format set (corpus.jsonl, queries.jsonl, qrels/test.tsv): nDCG@10, Recall@1, Recall@10, MRR.",
        discussion: "scripts/eval/make-python-faq-set.py builds such a set from Debian python3.11-doc's FAQ pages."
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The set's directory.") var directory: String
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await global.withRuntime { runtime in
            let evaluation = try await runtime.evaluateRetrieval(directory: URL(fileURLWithPath: directory)) { step in
                Terminal.error(Terminal.dim(step, stderr: true))
            }
            if json {
                Terminal.print(Format.json(Wire.RetrievalEvaluation(evaluation)))
                return
            }
            let modes = SearchMode.allCases.filter { evaluation.metrics[$0] != nil }
            Terminal.print("\(evaluation.queries) queries over \(evaluation.passages) passages, embeddings: \(evaluation.embeddingModel), in \(Format.seconds(evaluation.elapsed))")
            Terminal.print(Format.table(["RETRIEVAL", "nDCG@10", "RECALL@1", "RECALL@10", "MRR@10"], modes.map { mode in
                let metrics = evaluation.metrics[mode]!
                return [mode == .lexical ? "bm25" : mode.rawValue] + [metrics.ndcgAt10, metrics.recallAt1, metrics.recallAt10, metrics.mrrAt10].map { String(format: "%.3f", $0) }
            }))
        }
    }
}
