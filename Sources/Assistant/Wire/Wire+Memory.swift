public import Foundation
public import SibylCore

extension Wire {
    /// A fact in the user's memory, with the conversation and message it came from.
    public struct MemoryFact: Sendable, Hashable, Codable {
        public var id: String
        public var text: String
        /// `proposed` (not used until accepted) or `accepted`.
        public var status: String
        /// The conversation and message it came from; absent for a fact the user wrote, or one
        /// whose conversation was deleted since.
        public var conversationId: String?
        public var messageId: String?
        public var createdAt: Date
        public var acceptedAt: Date?

        public init(_ fact: SibylCore.MemoryFact) {
            id = fact.id.wireString
            text = fact.text
            status = fact.status.rawValue
            conversationId = fact.conversationID?.wireString
            messageId = fact.messageID?.wireString
            createdAt = fact.createdAt
            acceptedAt = fact.acceptedAt
        }
    }
}

extension Wire {
    /// What `sibyl eval --memory` measured.
    public struct MemoryEvaluation: Sendable, Codable {
        public struct Proposal: Sendable, Codable {
            public var conversation: String
            public var text: String
            public var right: Bool
        }

        public struct Question: Sendable, Codable {
            public var question: String
            /// The fact it needs; absent when it needs none.
            public var needs: String?
            public var recalled: [String]
            public var recalledRight: Bool
            /// The needed fact's cosine with the question.
            public var neededScore: Double?
            public var answer: String
            public var answeredRight: Bool
        }

        public var model: String
        public var embeddingModel: String
        public var conversations: Int
        public var proposals: [Proposal]
        public var precision: Double
        public var recall: Double
        /// The least cosine a fact needs to be recalled, for any question and for one about the asker.
        public var threshold: Double
        public var personalThreshold: Double
        public var questions: [Question]
        public var recalledNeeded: Double
        public var recalledNothing: Double
        public var answeredRightWithFact: Double
        public var seconds: Double

        public init(_ evaluation: Assistant.MemoryEvaluation) {
            model = evaluation.model
            embeddingModel = evaluation.embeddingModel
            conversations = evaluation.proposed.count
            proposals = evaluation.proposed.flatMap { item in item.proposals.map { Proposal(conversation: item.conversation, text: $0.text, right: $0.right) } }
            precision = evaluation.precision
            recall = evaluation.recall
            threshold = MemoryRecall.threshold
            personalThreshold = MemoryRecall.personalThreshold
            questions = evaluation.asked.map { asked in
                Question(
                    question: asked.question, needs: asked.needs, recalled: asked.recalled.map(\.fact.text), recalledRight: asked.recalledNeeded,
                    neededScore: asked.neededScore, answer: asked.answer, answeredRight: asked.answeredRight
                )
            }
            recalledNeeded = evaluation.recalledNeeded
            recalledNothing = evaluation.recalledNothing
            answeredRightWithFact = evaluation.answeredRightWithFact
            seconds = Double(evaluation.elapsed.milliseconds) / 1000
        }
    }
}
