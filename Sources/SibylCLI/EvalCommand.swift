import ArgumentParser
import Assistant
import Foundation
import Knowledge
import SibylApp
import SibylCore

/// `sibyl eval`: retrieval quality on a BEIR-format set, or answers from documents on an answer set.
struct Eval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Measure retrieval on a BEIR-format set (nDCG@10, Recall@1, Recall@10, MRR); with --answers, answers from documents; with --translations, the translator (chrF).",
        discussion: """
        A retrieval set has corpus.jsonl, queries.jsonl and qrels/test.tsv; scripts/eval/make-python-faq-set.py builds one \
        from Debian python3.11-doc's FAQ pages. An answer set (--answers) has a documents folder and questions.jsonl \
        ({"id", "question", "answer": the fact or null, "source": the file holding it}); scripts/eval/make-python-answers-set.py \
        builds one from python3.11-doc's library pages. Its documents go into the collection eval-answers, removed afterwards. \
        A translation set (--translations) is a JSONL file of {"id", "texts": {"en": …, "ko": …, "id": …}}; each sentence is \
        translated from English into the other languages and back, and scored with chrF against the set's references \
        (scripts/eval/translations.jsonl: English, Korean and Indonesian).
        """
    )

    @OptionGroup var global: GlobalOptions
    @Argument(help: "The set's directory (the file, with --translations).") var directory: String
    @Flag(help: "Ask the set's questions from its documents and grade the answers.") var answers = false
    @Flag(help: "Translate the set's sentences with the translator persona and score them (chrF).") var translations = false
    @Flag(help: "Measure the memory on a labelled set (the file; scripts/eval/memory.json): proposals' precision, recall of the facts questions need, answers with them.") var memory = false
    @Option(help: "With --answers or --translations: chat model instead of the configured one (local engines: default or fast).") var model: String?
    @Option(help: "With --answers or --translations: sampling temperature (default: the persona's).") var temperature: Double?
    @Flag(help: "Print JSON.") var json = false

    /// What --model and --temperature ask of the answers an evaluation gets.
    private var turnOptions: TurnOptions {
        get throws { try TurnOptions(model: model, sampling: Sampling(temperature: temperature)) }
    }

    /// An evaluation's progress, dimmed on standard error.
    private static let showStep: @Sendable (String) -> Void = { step in Terminal.error(Terminal.dim(step, stderr: true)) }

    func validate() throws {
        if [answers, translations, memory].filter({ $0 }).count > 1 { throw ValidationError("choose one of --answers, --translations and --memory") }
    }

    func run() async throws {
        if answers { return try await runAnswers() }
        if translations { return try await runTranslations() }
        if memory { return try await runMemory() }
        try await global.withRuntime { runtime in
            let evaluation = try await runtime.documents.evaluateRetrieval(directory: URL(fileURLWithPath: directory), progress: Self.showStep)
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

    private func runAnswers() async throws {
        try await global.withRuntime { runtime in
            let evaluation = try await runtime.documents.evaluateAnswers(directory: URL(fileURLWithPath: directory), options: try turnOptions, progress: Self.showStep)
            let report = Wire.AnswerEvaluation(evaluation)
            if json {
                Terminal.print(Format.json(report))
                return
            }
            Terminal.print("\(report.answerable + report.unanswerable) questions over \(report.documents) documents (\(report.passages) passages), model \(report.model), in \(Format.seconds(evaluation.elapsed))")
            Terminal.print(Format.table(["", "SHARE"], [
                ["answerable (\(report.answerable)): fact and its source cited", Self.percent(report.answeredRight)],
                ["  contain the fact", Self.percent(report.containsFact)],
                ["  cite the source that holds it", Self.percent(report.citesSource)],
                ["  wrongly say the documents do not answer", Self.percent(report.wronglyDeclined)],
                ["unanswerable (\(report.unanswerable)): declined", Self.percent(report.declinedRight)],
            ]))
            Terminal.print(String(
                format: "time to first token: median %.1f s, p90 %.1f s; whole answer: median %.1f s",
                Double(report.medianTimeToFirstTokenMs) / 1000, Double(report.p90TimeToFirstTokenMs) / 1000, Double(report.medianTotalMs) / 1000
            ))
            let wrong = report.questions.filter { !$0.right }
            if !wrong.isEmpty {
                Terminal.print("\nWrong answers:")
                for item in wrong {
                    let answer = item.answer.split(whereSeparator: \.isNewline).joined(separator: " ")
                    Terminal.print("  \(item.id) \(item.question)\n    → \(answer.prefix(160))")
                }
            }
        }
    }

    /// A share as the reports print it ("83 %").
    private static func percent(_ share: Double) -> String { String(format: "%.0f %%", share * 100) }

    private func runMemory() async throws {
        try await global.withRuntime { runtime in
            let evaluation = try await runtime.memory.evaluate(file: URL(fileURLWithPath: directory), options: try turnOptions, progress: Self.showStep)
            let report = Wire.MemoryEvaluation(evaluation)
            if json {
                Terminal.print(Format.json(report))
                return
            }
            let needing = report.questions.filter { $0.needs != nil }.count
            Terminal.print("\(report.conversations) conversations, \(report.questions.count) questions, model \(report.model), embeddings \(report.embeddingModel), in \(Format.seconds(evaluation.elapsed))")
            Terminal.print(Format.table(["", "SHARE"], [
                ["proposals (\(report.proposals.count)): facts worth keeping (precision)", String(format: "%.2f", report.precision)],
                ["labelled facts proposed (recall)", String(format: "%.2f", report.recall)],
                ["questions needing a fact (\(needing)): the fact recalled", Self.percent(report.recalledNeeded)],
                ["  answered right with it", Self.percent(report.answeredRightWithFact)],
                ["questions needing none (\(report.questions.count - needing)): nothing recalled", Self.percent(report.recalledNothing)],
            ]))
            let wrongProposals = report.proposals.filter { !$0.right }
            if !wrongProposals.isEmpty {
                Terminal.print("\nProposals that are not labelled facts:")
                for item in wrongProposals { Terminal.print("  \(item.conversation): \(item.text)") }
            }
            Terminal.print(String(
                format: "\nRecall (cosine ≥ %.2f, or %.2f for a question about the asker; within %.2f of the best; at most %d facts):",
                MemoryRecall.threshold, MemoryRecall.personalThreshold, MemoryRecall.margin, MemoryRecall.limit
            ))
            for item in report.questions {
                let needed = item.neededScore.map { String(format: "needed %.2f", $0) } ?? "needs none"
                let mark = item.recalledRight ? "✓" : "✗"
                Terminal.print("  \(mark) \(item.question) (\(needed)) → \(item.recalled.isEmpty ? "nothing" : item.recalled.joined(separator: " | "))")
            }
        }
    }

    private func runTranslations() async throws {
        try await global.withRuntime { runtime in
            let evaluation = try await runtime.admin.evaluateTranslations(file: URL(fileURLWithPath: directory), options: try turnOptions, progress: Self.showStep)
            let report = Wire.TranslationEvaluation(evaluation)
            if json {
                Terminal.print(Format.json(report))
                return
            }
            let sentences = report.directions.first?.sentences.count ?? 0
            Terminal.print("\(sentences) sentences, \(report.directions.count) directions, model \(report.model), in \(Format.seconds(evaluation.elapsed))")
            Terminal.print(Format.table(["DIRECTION", "chrF", "MEDIAN TIME"], report.directions.map { item in
                ["\(item.source) → \(item.target)", String(format: "%.1f", item.chrF), String(format: "%.1f s", item.medianSeconds)]
            }))
        }
    }
}
