public import Assistant
public import Foundation
import Knowledge
import SibylCore

extension SibylRuntime.Documents {
    /// The collection an answer evaluation puts its documents in, emptied before and after.
    public static let answerEvaluationCollection = "eval-answers"

    /// Measures retrieval (nDCG@10, Recall@1, Recall@10, MRR@10) on a BEIR-format set
    /// (corpus.jsonl, queries.jsonl, qrels/test.tsv) with the current embedder and search settings.
    public func evaluateRetrieval(directory: URL, progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> RetrievalEvaluation {
        let set = try BEIRSet(directory: directory)
        let setup = try await runtime.embeddingSetup()
        let evaluator = RetrievalEvaluator(embedder: setup.embedder, embeddingModel: setup.model, options: try await runtime.retriever().options)
        let started = ContinuousClock.now
        let metrics = try await evaluator.evaluate(set, progress: progress)
        let evaluation = RetrievalEvaluation(embeddingModel: setup.model, passages: set.corpus.count, queries: set.queries.count, metrics: metrics, elapsed: ContinuousClock.now - started)
        await runtime.log(.info, .eval, "evaluated \(directory.path)", details: Wire.RetrievalEvaluation(evaluation))
        return evaluation
    }

    /// Asks every question of an `AnswerSet` (a `documents` folder and `questions.jsonl`) from its
    /// documents, as `ask --docs` would, and grades each answer: does it hold the expected fact,
    /// cite the document that holds it, and, where no document answers, say so. The documents go
    /// into the collection `eval-answers`, which is emptied before and removed after; nothing is
    /// saved as a conversation.
    public func evaluateAnswers(directory: URL, options: TurnOptions = TurnOptions(), progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> AnswerEvaluation {
        let set = try AnswerSet(directory: directory)
        let collection = Self.answerEvaluationCollection
        try await clearCollection(collection)
        let started = ContinuousClock.now
        do {
            progress("Adding \(set.documents.count) documents to the collection '\(collection)'")
            let addition = try await add(set.documents, collection: collection)
            var results: [AnsweredQuestion] = []
            var model = ""
            for (index, question) in set.questions.enumerated() {
                let asked = ContinuousClock.now
                var firstToken: Duration?
                var text = ""
                var citations: [Citation] = []
                var declinedWithoutModel = false
                let request = CompletionRequest(messages: [.user(question.text)], persona: "assistant", documents: DocumentScope(collection: collection), options: options)
                switch try await runtime.conversations.complete(request, loggingAs: nil) {
                case .declined(let reply, _):
                    text = reply
                    declinedWithoutModel = true
                    firstToken = ContinuousClock.now - asked
                case .answering(let answer):
                    citations = answer.sources
                    let whole = try await answer.whole()
                    text = whole.text
                    // The name the model answered with: a local `fast` is Qwen2.5-Coder 0.5B.
                    model = whole.model
                    firstToken = whole.firstText.map { $0 - asked }
                }
                let total = ContinuousClock.now - asked
                let grade = AnswerGrader.grade(answer: text, declinedWithoutModel: declinedWithoutModel, citations: citations, question: question)
                results.append(AnsweredQuestion(question: question, answer: text, grade: grade, timeToFirstToken: firstToken ?? total, total: total))
                let verdict = grade.isRight(answerable: question.isAnswerable) ? "right" : "wrong"
                progress("[\(index + 1)/\(set.questions.count)] \(verdict) in \(String(format: "%.1f", Double(total.milliseconds) / 1000)) s: \(question.text)")
            }
            try await clearCollection(collection)
            let evaluation = AnswerEvaluation(
                model: model, documents: addition.summary.added.count + addition.summary.replaced.count, passages: addition.summary.chunks,
                results: results, elapsed: ContinuousClock.now - started
            )
            await runtime.log(.info, .eval, "answers on \(directory.path)", details: Wire.AnswerEvaluation(evaluation))
            return evaluation
        } catch {
            try? await clearCollection(collection)
            throw error
        }
    }

    /// Removes a collection left over by an interrupted evaluation.
    private func clearCollection(_ name: String) async throws {
        guard try await collections().contains(where: { $0.name == name }) else { return }
        try await deleteCollection(name)
    }
}
