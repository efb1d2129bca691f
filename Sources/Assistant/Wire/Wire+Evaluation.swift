import Foundation
import Knowledge

extension Wire {
    /// Retrieval quality on a test set, per search mode.
    public struct RetrievalEvaluation: Sendable, Hashable, Codable {
        /// The metrics of one search mode.
        public struct Metrics: Sendable, Hashable, Codable {
            public var ndcgAt10: Double
            public var recallAt1: Double
            public var recallAt10: Double
            public var mrrAt10: Double
        }

        public var embeddingModel: String
        public var passages: Int
        public var queries: Int
        public var seconds: Double
        /// By mode: `hybrid`, `vector`, `lexical`.
        public var modes: [String: Metrics]

        public init(_ evaluation: Assistant.RetrievalEvaluation) {
            embeddingModel = evaluation.embeddingModel
            passages = evaluation.passages
            queries = evaluation.queries
            seconds = Double(evaluation.elapsed.milliseconds) / 1000
            modes = Dictionary(uniqueKeysWithValues: evaluation.metrics.map { mode, metrics in
                (mode.rawValue, Metrics(ndcgAt10: metrics.ndcgAt10, recallAt1: metrics.recallAt1, recallAt10: metrics.recallAt10, mrrAt10: metrics.mrrAt10))
            })
        }
    }

    /// Answers from documents measured on an answer set (`sibyl eval --answers`).
    public struct AnswerEvaluation: Sendable, Hashable, Codable {
        public struct Question: Sendable, Hashable, Codable {
            public var id: String
            public var question: String
            public var answerable: Bool
            public var answer: String
            public var right: Bool
            public var containsFact: Bool
            public var citesSource: Bool
            public var declined: Bool
            public var timeToFirstTokenMs: Int
            public var totalMs: Int
        }

        public var model: String
        public var documents: Int
        public var passages: Int
        public var answerable: Int
        public var unanswerable: Int
        /// Answerable questions answered with the expected fact and a citation of its source.
        public var answeredRight: Double
        public var containsFact: Double
        public var citesSource: Double
        public var wronglyDeclined: Double
        /// Unanswerable questions that the answer said the documents do not answer.
        public var declinedRight: Double
        public var medianTimeToFirstTokenMs: Int
        public var p90TimeToFirstTokenMs: Int
        public var medianTotalMs: Int
        public var seconds: Double
        public var questions: [Question]

        public init(_ evaluation: Assistant.AnswerEvaluation) {
            model = evaluation.model
            documents = evaluation.documents
            passages = evaluation.passages
            answerable = evaluation.answerable.count
            unanswerable = evaluation.unanswerable.count
            answeredRight = evaluation.answeredRight
            containsFact = evaluation.containsFact
            citesSource = evaluation.citesSource
            wronglyDeclined = evaluation.wronglyDeclined
            declinedRight = evaluation.declinedRight
            let firstTokens = evaluation.results.map(\.timeToFirstToken.milliseconds).sorted()
            let totals = evaluation.results.map(\.total.milliseconds).sorted()
            func quantile(_ sorted: [Int], _ q: Double) -> Int { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))] }
            medianTimeToFirstTokenMs = quantile(firstTokens, 0.5)
            p90TimeToFirstTokenMs = quantile(firstTokens, 0.9)
            medianTotalMs = quantile(totals, 0.5)
            seconds = Double(evaluation.elapsed.milliseconds) / 1000
            questions = evaluation.results.map { result in
                Question(
                    id: result.question.id, question: result.question.text, answerable: result.question.isAnswerable, answer: result.answer,
                    right: result.grade.isRight(answerable: result.question.isAnswerable), containsFact: result.grade.containsFact,
                    citesSource: result.grade.citesSource, declined: result.grade.declined,
                    timeToFirstTokenMs: result.timeToFirstToken.milliseconds, totalMs: result.total.milliseconds
                )
            }
        }
    }

    /// A translation evaluation: chrF per direction, with every translation.
    public struct TranslationEvaluation: Sendable, Hashable, Codable {
        public struct Sentence: Sendable, Hashable, Codable {
            public var id: String
            public var translation: String
            public var chrF: Double
        }

        public struct Direction: Sendable, Hashable, Codable {
            public var source: String
            public var target: String
            public var chrF: Double
            public var medianSeconds: Double
            public var sentences: [Sentence]
        }

        public var model: String
        public var directions: [Direction]
        public var seconds: Double

        public init(_ evaluation: Assistant.TranslationEvaluation) {
            model = evaluation.model
            seconds = Double(evaluation.elapsed.milliseconds) / 1000
            directions = evaluation.directions.map { item in
                Direction(
                    source: item.direction.source, target: item.direction.target, chrF: item.chrF, medianSeconds: item.medianSeconds,
                    sentences: item.sentences.map { Sentence(id: $0.id, translation: $0.translation, chrF: $0.chrF) }
                )
            }
        }
    }
}
