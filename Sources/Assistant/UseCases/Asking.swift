public import Foundation
public import Knowledge
public import SibylCore
import Storage

/// Which conversation a question goes to.
public enum ConversationChoice: Sendable, Hashable {
    /// This conversation.
    case id(UUID)
    /// The conversation a user named: a whole id or its first characters.
    case reference(String)
    /// A new conversation.
    case new(NewConversation)
    /// The most recent conversation from the same source, or a new one when there is none.
    case latestOrNew(NewConversation)
}

/// How a new conversation starts.
public struct NewConversation: Sendable, Hashable {
    /// The persona; nil means the configured default.
    public var persona: String?
    public var mode: ConversationMode
    public var source: ConversationSource

    public init(persona: String? = nil, mode: ConversationMode = .chat, source: ConversationSource) {
        self.persona = persona
        self.mode = mode
        self.source = source
    }
}

/// Where grounded answers come from.
public struct DocumentScope: Sendable, Hashable {
    /// One collection, or all of them.
    public var collection: String?
    public var mode: SearchMode

    public init(collection: String? = nil, mode: SearchMode = .hybrid) {
        self.collection = collection
        self.mode = mode
    }
}

/// A question for the assistant.
public struct AskRequest: Sendable {
    public var question: String
    public var attachments: [Attachment]
    public var conversation: ConversationChoice
    /// Answer from the user's documents, with citations; nil answers without them.
    public var documents: DocumentScope?
    public var options: TurnOptions

    public init(_ question: String, attachments: [Attachment] = [], conversation: ConversationChoice, documents: DocumentScope? = nil, options: TurnOptions = TurnOptions()) {
        self.question = question
        self.attachments = attachments
        self.conversation = conversation
        self.documents = documents
        self.options = options
    }
}

/// What asking did: an answer under way, or a plain "the documents do not say" that needed no model.
public struct AskResult: Sendable {
    public var conversation: Conversation
    public var outcome: Outcome

    package init(conversation: Conversation, outcome: Outcome) {
        self.conversation = conversation
        self.outcome = outcome
    }

    public enum Outcome: Sendable {
        /// The answer is being written.
        case answering(LiveTurn)
        /// No passage of the documents was relevant enough: the saved reply says so.
        case declined(DeclinedAnswer)
    }
}

/// A grounded question no document answers: the saved reply, and the closest passages.
public struct DeclinedAnswer: Sendable {
    public var question: String
    public var reply: Message
    public var closest: [SearchResult]
    public var threshold: Double

    package init(question: String, reply: Message, closest: [SearchResult], threshold: Double) {
        self.question = question
        self.reply = reply
        self.closest = closest
        self.threshold = threshold
    }
}

/// Answers questions: `SibylRuntime.ask`, shared by every surface.
public protocol Asking: Sendable {
    /// Asks a question; see `SibylRuntime.ask(_:)`.
    func ask(_ request: AskRequest) async throws -> AskResult
}
