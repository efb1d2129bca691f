public import Foundation

/// Something about the user that Sibyl may keep in mind across conversations: proposed from a
/// conversation (and used only once the user accepts it) or written by the user. Kept per account,
/// with the conversation and message it came from.
public struct MemoryFact: Codable, Sendable, Hashable, Identifiable {
    public enum Status: String, Codable, Sendable, CaseIterable {
        /// Sibyl noticed it; not used until the user accepts it.
        case proposed
        /// The user wants it remembered: answers may use it.
        case accepted
    }

    public var id: UUID
    /// The fact in one sentence, as it is shown and given to the model.
    public var text: String
    public var status: Status
    /// The conversation and the message it came from (nil for a fact the user wrote, or one whose
    /// conversation was deleted since).
    public var conversationID: UUID?
    public var messageID: UUID?
    public var createdAt: Date
    /// When the user accepted it.
    public var acceptedAt: Date?

    /// The longest fact kept, in characters: a fact is one sentence, not a document.
    public static let maximumLength = 500

    public init(id: UUID = UUID(), text: String, status: Status, conversationID: UUID? = nil, messageID: UUID? = nil, createdAt: Date = Date(), acceptedAt: Date? = nil) {
        self.id = id
        self.text = text
        self.status = status
        self.conversationID = conversationID
        self.messageID = messageID
        self.createdAt = createdAt
        self.acceptedAt = acceptedAt
    }
}

/// A fact from the user's memory found relevant to a question, and how relevant (the cosine of
/// their embeddings).
public struct RememberedFact: Sendable, Hashable {
    public var fact: MemoryFact
    public var score: Double

    public init(fact: MemoryFact, score: Double) {
        self.fact = fact
        self.score = score
    }
}
