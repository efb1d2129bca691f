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
        try await reportingErrors {
            let runtime = try global.runtime()
            let set = try BEIRSet(directory: URL(fileURLWithPath: directory))
            let setup = try runtime.embeddingSetup()
            let options = try runtime.retriever(setup: setup).options
            let evaluator = RetrievalEvaluator(embedder: setup.embedder, embeddingModel: setup.model, options: options)
            let started = ContinuousClock.now
            let results = try await evaluator.evaluate(set) { step in Terminal.error(Terminal.dim(step, stderr: true)) }
            let modes = SearchMode.allCases.filter { results[$0] != nil }
            if json {
                var report: [String: Any] = ["embedding_model": setup.model, "passages": set.corpus.count, "queries": set.queries.count]
                for mode in modes {
                    let metrics = results[mode]!
                    report[mode.rawValue] = ["ndcg@10": metrics.ndcgAt10, "recall@1": metrics.recallAt1, "recall@10": metrics.recallAt10, "mrr@10": metrics.mrrAt10]
                }
                Terminal.print(Format.json(report))
            } else {
                Terminal.print("\(set.queries.count) queries over \(set.corpus.count) passages, embeddings: \(setup.model), in \(Format.seconds(ContinuousClock.now - started))")
                Terminal.print(Format.table(["RETRIEVAL", "nDCG@10", "RECALL@1", "RECALL@10", "MRR@10"], modes.map { mode in
                    let metrics = results[mode]!
                    return [mode == .lexical ? "bm25" : mode.rawValue] + [metrics.ndcgAt10, metrics.recallAt1, metrics.recallAt10, metrics.mrrAt10].map { String(format: "%.3f", $0) }
                }))
            }
            try OperationLog.record(runtime, "eval", message: "evaluated \(directory)", details: modes.reduce(into: [String: Any]()) { $0[$1.rawValue] = results[$1]!.ndcgAt10 })
        }
    }
}
