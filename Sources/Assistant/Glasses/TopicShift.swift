public import SibylCore

/// Whether a question starts a new subject after the exchanges before it: what Sibyl tells the Noa
/// app as `topic_changed` (the app then drops its history) and when it starts a new conversation.
///
/// The rule: a question with nothing before it changes nothing. Otherwise the question is compared,
/// by meaning (the embedding model's vectors, cosine), with the last question and with the last
/// exchange as a whole; below `threshold` it is a new subject. A question that leans on what came
/// before (a pronoun such as "it" or "there", or an opening such as "and", "what about", "why")
/// must fall further, below `threshold - followUpAllowance`, since its own words say little.
/// Measured on a labelled set of 48 pairs (Tests/Fixtures/topic-shifts.json): 44 right with the
/// local MiniLM; `NoaTests.topicRuleAccuracy` prints the figure and lists the misses.
public struct TopicShift: Sendable {
    /// The similarity under which a question is a new subject.
    public var threshold: Double = 0.25
    /// How much lower a question that refers back must fall.
    public var followUpAllowance: Double = 0.15

    let embedder: any Embedder

    public init(embedder: any Embedder) {
        self.embedder = embedder
    }

    /// One earlier message, as a chat app keeps it.
    public struct Turn: Sendable, Hashable, Codable {
        public var role: String
        public var content: String

        public init(role: String, content: String) {
            self.role = role
            self.content = content
        }
    }

    /// The decision, and what it rests on.
    public struct Decision: Sendable, Hashable {
        public var changed: Bool
        /// The highest similarity with what came before; nil with nothing before.
        public var similarity: Double?
        /// Whether the question refers back.
        public var refersBack: Bool

        public init(changed: Bool, similarity: Double?, refersBack: Bool) {
            self.changed = changed
            self.similarity = similarity
            self.refersBack = refersBack
        }
    }

    /// Whether `question` starts a new subject after `history` (oldest first).
    public func decide(_ question: String, after history: [Turn]) async throws -> Decision {
        let refers = Self.refersBack(question)
        guard let lastQuestion = history.last(where: { $0.role == "user" && !$0.content.isEmpty })?.content else {
            return Decision(changed: false, similarity: nil, refersBack: refers)
        }
        let lastAnswer = history.last(where: { $0.role == "assistant" })?.content ?? ""
        let vectors = try await embedder.embed([question, lastQuestion, lastQuestion + "\n" + lastAnswer], options: EmbeddingOptions()).vectors
        guard vectors.count == 3 else { return Decision(changed: false, similarity: nil, refersBack: refers) }
        let similarity = max(cosine(vectors[0], vectors[1]), cosine(vectors[0], vectors[2]))
        let limit = refers ? threshold - followUpAllowance : threshold
        return Decision(changed: similarity < limit, similarity: similarity, refersBack: refers)
    }

    /// Words that point at something said before, and openings that continue it.
    static let referringWords: Set<String> = [
        "it", "its", "it's", "that", "this", "those", "these", "they", "them", "their", "theirs", "there", "then",
        "he", "him", "his", "she", "her", "hers", "one", "ones", "else", "also", "too", "more", "another", "again",
        "same", "instead", "other", "former", "latter",
    ]
    static let continuingOpenings = ["and ", "but ", "so ", "why", "what about", "how about", "and what", "what else", "tell me more", "really", "or "]

    /// Whether the question leans on what came before.
    static func refersBack(_ question: String) -> Bool {
        let lowered = question.lowercased()
        if continuingOpenings.contains(where: { lowered.hasPrefix($0) }) { return true }
        let words = lowered.split { !$0.isLetter && $0 != "'" }.map(String.init)
        return words.contains { referringWords.contains($0) }
    }
}
