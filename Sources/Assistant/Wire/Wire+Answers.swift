public import Foundation
public import Knowledge
public import SibylCore

extension Wire {
    /// How one question ended: the report `ask --json` prints and a turn's saved result.
    public struct Answer: Sendable, Hashable, Codable {
        public var conversationId: String
        public var messageId: String?
        /// `complete`, `failed`, `cancelled`, or `declined` (no document passage was relevant enough).
        public var status: String
        public var answer: String
        public var model: String?
        public var usage: Usage?
        public var timings: Timings?
        public var citations: [Citation]
        /// Each sentence of the answer with the passages that support it (an answer from documents).
        public var claims: [Claim]?
        /// The conversation's new title, when this answer gave it one.
        public var title: String?
        public var error: String?
        /// What the user can do about a failure, when known.
        public var remedy: RemedyBody?
        /// For a declined question: the closest passages and the threshold they missed.
        public var closest: [Passage]?
        public var threshold: Double?

        /// The report of an answer that ended.
        public init(conversationID: UUID, ending event: AssistantEvent?, title: String? = nil) {
            conversationId = conversationID.wireString
            citations = []
            answer = ""
            self.title = title
            let message: SibylCore.Message?
            switch event {
            case .finished(let finished):
                message = finished
                status = "complete"
            case .failed(let failed, let error):
                message = failed
                status = "failed"
                self.error = error.text
                remedy = error.remedy.map(RemedyBody.init)
            case .cancelled(let cancelled):
                message = cancelled
                status = "cancelled"
            default:
                message = nil
                status = "failed"
                error = "the answer ended without a result"
            }
            if let message {
                messageId = message.id.wireString
                answer = message.text
                model = message.model
                usage = message.usage.map(Usage.init)
                timings = message.timings.map(Timings.init)
                citations = message.citations.map(Citation.init)
                claims = Claim.of(message)
            }
        }

        /// The report of a question no document answers.
        public init(declined: DeclinedAnswer, conversationID: UUID) {
            conversationId = conversationID.wireString
            messageId = declined.reply.id.wireString
            status = "declined"
            answer = declined.reply.text
            citations = []
            closest = declined.closest.enumerated().map { Passage($0.element, rank: $0.offset + 1) }
            threshold = declined.threshold
        }
    }

    /// One event of an answer being written, as the HTTP API streams it (`event:` is `type`).
    public struct TurnEvent: Sendable, Hashable, Codable {
        /// `started`, `delta`, `usage`, `toolCalled`, `toolAnswered`, `historyTrimmed`, `finished`,
        /// `failed`, `cancelled`, `titled`.
        public var type: String
        public var conversationId: String?
        public var questionId: String?
        public var answerId: String?
        public var text: String?
        public var usage: Usage?
        public var droppedMessages: Int?
        public var message: Message?
        public var error: String?
        /// What the user can do about a failure, when known.
        public var remedy: RemedyBody?
        public var title: String?
        /// `toolCalled`: the call being made.
        public var tool: ToolCall?
        /// `toolAnswered`: the tool's result, numbered as a source (its `tool` says which call).
        public var citation: Citation?

        public init(_ event: AssistantEvent, conversationID: UUID, attachmentURL: (SibylCore.Attachment) -> String? = { _ in nil }) {
            conversationId = conversationID.wireString
            switch event {
            case .started(let question, let answerID):
                type = "started"
                questionId = question.id.wireString
                answerId = answerID.wireString
            case .delta(let text):
                type = "delta"
                self.text = text
            case .usage(let usage):
                type = "usage"
                self.usage = Usage(usage)
            case .toolCalled(let use):
                type = "toolCalled"
                tool = ToolCall(use)
            case .toolAnswered(let source):
                type = "toolAnswered"
                citation = Citation(source)
            case .historyTrimmed(let dropped):
                type = "historyTrimmed"
                droppedMessages = dropped
            case .finished(let message):
                type = "finished"
                self.message = Message(message, attachmentURL: attachmentURL)
            case .failed(let message, let error):
                type = "failed"
                self.message = Message(message, attachmentURL: attachmentURL)
                self.error = error.text
                remedy = error.remedy.map(RemedyBody.init)
            case .cancelled(let message):
                type = "cancelled"
                self.message = Message(message, attachmentURL: attachmentURL)
            case .titled(let title):
                type = "titled"
                self.title = title
            }
        }
    }

    /// A passage found for a query, ranked.
    public struct Passage: Sendable, Hashable, Codable {
        public var rank: Int
        /// The score results are ordered by (fused, cosine or BM25, by mode).
        public var score: Double
        /// Cosine similarity to the query, when the vector ranking found it.
        public var vectorScore: Double?
        /// BM25 score, when the lexical ranking found it.
        public var lexicalScore: Double?
        public var documentId: Int64
        public var document: String
        public var path: String
        public var page: Int?
        public var section: [String]
        public var text: String

        public init(_ result: SearchResult, rank: Int) {
            self.rank = rank
            score = result.score
            vectorScore = result.vectorScore
            lexicalScore = result.lexicalScore
            documentId = result.document.id
            document = result.document.displayName
            path = result.document.path
            page = result.chunk.page
            section = result.chunk.headingPath
            text = result.chunk.text
        }
    }
}
