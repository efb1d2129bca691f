public import Assistant
public import Foundation
import Knowledge
import SibylCore

extension SibylRuntime.Admin {
    /// Translates every sentence of a `TranslationSet` from English into each other language and
    /// back with the translator persona's prompt, as `sibyl ask --translate-to` does, and scores the
    /// translations against the set's references with chrF.
    public func evaluateTranslations(file: URL, options: TurnOptions = TurnOptions(), progress: @escaping @Sendable (String) -> Void = { _ in }) async throws -> TranslationEvaluation {
        let set = try TranslationSet(file: file)
        let started = ContinuousClock.now
        let translator = try await runtime.engine.personas.persona(named: "translator")
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
                let whole = try await runtime.engine.answer([.user(sentence.texts[direction.source]!)], persona: persona, options: options).whole()
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
        await runtime.log(.info, .eval, "translations on \(file.path)", details: Wire.TranslationEvaluation(evaluation))
        return evaluation
    }
}
