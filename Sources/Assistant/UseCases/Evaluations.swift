import Foundation
public import Knowledge
import SibylCore

/// Retrieval quality measured on a BEIR-format set.
public struct RetrievalEvaluation: Sendable {
    public var embeddingModel: String
    public var passages: Int
    public var queries: Int
    public var metrics: [SearchMode: RetrievalMetrics]
    public var elapsed: Duration

    package init(embeddingModel: String, passages: Int, queries: Int, metrics: [SearchMode: RetrievalMetrics], elapsed: Duration) {
        self.embeddingModel = embeddingModel
        self.passages = passages
        self.queries = queries
        self.metrics = metrics
        self.elapsed = elapsed
    }
}

/// One question of an answer evaluation, as it went.
public struct AnsweredQuestion: Sendable {
    public var question: AnswerSet.Question
    public var answer: String
    public var grade: AnswerGrade
    /// Time to the first word of the answer (to the reply, when no model was asked).
    public var timeToFirstToken: Duration
    public var total: Duration

    package init(question: AnswerSet.Question, answer: String, grade: AnswerGrade, timeToFirstToken: Duration, total: Duration) {
        self.question = question
        self.answer = answer
        self.grade = grade
        self.timeToFirstToken = timeToFirstToken
        self.total = total
    }
}

/// Answers from documents measured on an `AnswerSet`.
public struct AnswerEvaluation: Sendable {
    public var model: String
    public var documents: Int
    public var passages: Int
    public var results: [AnsweredQuestion]
    public var elapsed: Duration

    package init(model: String, documents: Int, passages: Int, results: [AnsweredQuestion], elapsed: Duration) {
        self.model = model
        self.documents = documents
        self.passages = passages
        self.results = results
        self.elapsed = elapsed
    }

    public var answerable: [AnsweredQuestion] { results.filter(\.question.isAnswerable) }
    public var unanswerable: [AnsweredQuestion] { results.filter { !$0.question.isAnswerable } }

    /// The share of `items` for which `holds` is true (0 when there are none).
    public static func share(_ items: [AnsweredQuestion], _ holds: (AnsweredQuestion) -> Bool) -> Double {
        items.isEmpty ? 0 : Double(items.filter(holds).count) / Double(items.count)
    }

    /// Answerable questions answered with the fact and a citation of its source.
    public var answeredRight: Double { Self.share(answerable) { $0.grade.isRight(answerable: true) } }
    public var containsFact: Double { Self.share(answerable) { $0.grade.containsFact } }
    public var citesSource: Double { Self.share(answerable) { $0.grade.citesSource } }
    /// Answerable questions the answer wrongly said the documents do not answer.
    public var wronglyDeclined: Double { Self.share(answerable) { $0.grade.declined } }
    /// Unanswerable questions declined.
    public var declinedRight: Double { Self.share(unanswerable) { $0.grade.declined } }
}

/// The translator persona measured on a `TranslationSet`.
public struct TranslationEvaluation: Sendable {
    public struct Direction: Sendable {
        public var direction: TranslationDirection
        /// Corpus chrF, 0 … 100.
        public var chrF: Double
        public var medianSeconds: Double
        /// Per sentence: its id, the translation and its chrF.
        public var sentences: [(id: String, translation: String, chrF: Double)]

        package init(direction: TranslationDirection, chrF: Double, medianSeconds: Double, sentences: [(id: String, translation: String, chrF: Double)]) {
            self.direction = direction
            self.chrF = chrF
            self.medianSeconds = medianSeconds
            self.sentences = sentences
        }
    }

    public var model: String
    public var directions: [Direction]
    public var elapsed: Duration

    package init(model: String, directions: [Direction], elapsed: Duration) {
        self.model = model
        self.directions = directions
        self.elapsed = elapsed
    }
}
