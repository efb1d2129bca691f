import Assistant
import Foundation
import Knowledge
import SibylCore

extension SibylRuntime {
    /// Measures retrieval (nDCG@10, Recall@1, Recall@10, MRR@10) on a BEIR-format set
    /// (corpus.jsonl, queries.jsonl, qrels/test.tsv) with the current embedder and search settings.
    public func evaluateRetrieval(directory: URL, progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> RetrievalEvaluation {
        let set = try BEIRSet(directory: directory)
        let setup = try embeddingSetup()
        let evaluator = RetrievalEvaluator(embedder: setup.embedder, embeddingModel: setup.model, options: try await retriever().options)
        let started = ContinuousClock.now
        let metrics = try await evaluator.evaluate(set, progress: progress)
        let evaluation = RetrievalEvaluation(embeddingModel: setup.model, passages: set.corpus.count, queries: set.queries.count, metrics: metrics, elapsed: ContinuousClock.now - started)
        await log(.info, .eval, "evaluated \(directory.path)", details: Wire.RetrievalEvaluation(evaluation))
        return evaluation
    }
}

extension SibylRuntime {
    /// The collection an answer evaluation puts its documents in, emptied before and after.
    public static let answerEvaluationCollection = "eval-answers"

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
            let addition = try await addDocuments(set.documents, collection: collection)
            var results: [AnsweredQuestion] = []
            var model = ""
            for (index, question) in set.questions.enumerated() {
                let asked = ContinuousClock.now
                var firstToken: Duration?
                var text = ""
                var citations: [Citation] = []
                var declinedWithoutModel = false
                let request = CompletionRequest(messages: [.user(question.text)], persona: "assistant", documents: DocumentScope(collection: collection), options: options)
                switch try await complete(request, loggingAs: nil) {
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
            await log(.info, .eval, "answers on \(directory.path)", details: Wire.AnswerEvaluation(evaluation))
            return evaluation
        } catch {
            try? await clearCollection(collection)
            throw error
        }
    }

    /// Removes a collection and its documents (a left-over of an interrupted evaluation, say),
    /// document by document so that the loaded search index follows.
    private func clearCollection(_ name: String) async throws {
        guard let found = try await collections().first(where: { $0.name == name }) else { return }
        for listing in try await documents(in: name) { _ = try await removeDocument(id: listing.document.id) }
        try await knowledgeBase().deleteCollection(found.id)
    }
}

extension SibylRuntime {
    /// Translates every sentence of a `TranslationSet` from English into each other language and
    /// back with the translator persona's prompt, as `sibyl ask --translate-to` does, and scores the
    /// translations against the set's references with chrF.
    public func evaluateTranslations(file: URL, options: TurnOptions = TurnOptions(), progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> TranslationEvaluation {
        let set = try TranslationSet(file: file)
        let started = ContinuousClock.now
        let translator = try await engine.personas.persona(named: "translator")
        var model = ""
        var directions: [TranslationEvaluation.Direction] = []
        for direction in set.directions() {
            var persona = translator
            persona.systemPrompt = PersonaCatalog.translatorPrompt(target: TranslationDirection.name(of: direction.target))
            var chrF = ChrF()
            var seconds: [Double] = []
            var sentences: [(id: String, translation: String, chrF: Double)] = []
            for sentence in set.sentences {
                let asked = ContinuousClock.now
                let whole = try await engine.answer([.user(sentence.texts[direction.source]!)], persona: persona, options: options).whole()
                model = whole.model
                let translation = whole.text.trimmingCharacters(in: .whitespacesAndNewlines)
                let reference = sentence.texts[direction.target]!
                chrF.add(hypothesis: translation, reference: reference)
                seconds.append(Double((ContinuousClock.now - asked).milliseconds) / 1000)
                sentences.append((sentence.id, translation, ChrF.sentence(hypothesis: translation, reference: reference)))
                progress("[\(direction)] \(sentence.id): \(translation.prefix(80))")
            }
            let sorted = seconds.sorted()
            directions.append(.init(direction: direction, chrF: chrF.score, medianSeconds: sorted[sorted.count / 2], sentences: sentences))
        }
        let evaluation = TranslationEvaluation(model: model, directions: directions, elapsed: ContinuousClock.now - started)
        await log(.info, .eval, "translations on \(file.path)", details: Wire.TranslationEvaluation(evaluation))
        return evaluation
    }
}
