public import Foundation
public import SibylCore

/// A labelled set for the memory (`scripts/eval/memory.json`): conversations with the lasting facts
/// about the user worth keeping (none for trivia), and questions asked with a memory of facts,
/// naming the fact each needs (or none) and words a right answer holds.
public struct MemoryEvaluationSet: Sendable, Decodable {
    /// Words a text must hold: one of each group (lowercase, matched anywhere, so "allerg" takes "allergic").
    public struct Words: Sendable, Decodable {
        public var groups: [[String]]

        public init(from decoder: any Decoder) throws {
            groups = try decoder.singleValueContainer().decode([[String]].self)
        }

        public func found(in text: String) -> Bool {
            let lowered = text.lowercased()
            return groups.allSatisfy { group in group.contains { lowered.contains($0.lowercased()) } }
        }
    }

    public struct Conversation: Sendable, Decodable {
        public var id: String
        public var messages: [String]
        public var facts: [Words]
    }

    public struct Question: Sendable, Decodable {
        public var id: String
        public var question: String
        /// The index in `memory` of the fact the question needs; nil when it needs none.
        public var needs: Int?
        public var answer: Words
    }

    public var conversations: [Conversation]
    public var memory: [String]
    public var questions: [Question]

    public init(file: URL) throws {
        let data: Data
        do { data = try Data(contentsOf: file) } catch { throw MemoryEvaluationError("Cannot read \(file.path): \(error.localizedDescription)") }
        do { self = try JSONDecoder().decode(Self.self, from: data) } catch { throw MemoryEvaluationError("\(file.path) is not a memory evaluation set: \(error)") }
        for question in questions where question.needs.map({ !memory.indices.contains($0) }) ?? false {
            throw MemoryEvaluationError("Question \(question.id) needs fact \(question.needs ?? 0), but the memory has \(memory.count).")
        }
    }

    /// The conversation's messages as stored ones, the user's.
    public static func messages(of conversation: Conversation) -> [Message] {
        let id = UUID()
        return conversation.messages.map { Message(conversationID: id, role: .user, text: $0) }
    }
}

public struct MemoryEvaluationError: Error, LocalizedError {
    public var errorDescription: String?
    init(_ text: String) { errorDescription = text }
}

/// What `sibyl eval --memory` measured.
public struct MemoryEvaluation: Sendable {
    /// One conversation's proposals, each marked right (a labelled fact) or not.
    public struct Proposed: Sendable {
        public var conversation: String
        public var proposals: [(text: String, right: Bool)]
        /// Labelled facts some proposal found (each once, however many found it).
        public var found: Int
        /// Labelled facts no proposal found.
        public var missed: Int
    }

    /// One question: the facts recalled for it, and the answer.
    public struct Asked: Sendable {
        public var question: String
        public var needs: String?
        public var recalled: [RememberedFact]
        /// The needed fact's cosine (recalled or not), for choosing the threshold.
        public var neededScore: Double?
        public var answer: String
        public var answeredRight: Bool

        public init(question: String, needs: String?, recalled: [RememberedFact], neededScore: Double?, answer: String, answeredRight: Bool) {
            self.question = question
            self.needs = needs
            self.recalled = recalled
            self.neededScore = neededScore
            self.answer = answer
            self.answeredRight = answeredRight
        }

        public var recalledNeeded: Bool { needs.map { needed in recalled.contains { $0.fact.text == needed } } ?? recalled.isEmpty }
    }

    public var model: String
    public var embeddingModel: String
    public var proposed: [Proposed]
    public var asked: [Asked]
    public var elapsed: Duration

    public init(model: String, embeddingModel: String, proposed: [Proposed], asked: [Asked], elapsed: Duration) {
        self.model = model
        self.embeddingModel = embeddingModel
        self.proposed = proposed
        self.asked = asked
        self.elapsed = elapsed
    }

    public var proposals: Int { proposed.reduce(0) { $0 + $1.proposals.count } }
    public var rightProposals: Int { proposed.reduce(0) { $0 + $1.proposals.filter(\.right).count } }
    /// Right proposals among all (1 when nothing was proposed).
    public var precision: Double { proposals == 0 ? 1 : Double(rightProposals) / Double(proposals) }
    public var labelledFacts: Int { proposed.reduce(0) { $0 + $1.found + $1.missed } }
    /// Labelled facts found among all of them (1 when the set labels none).
    public var recall: Double { labelledFacts == 0 ? 1 : Double(proposed.reduce(0) { $0 + $1.found }) / Double(labelledFacts) }

    public var needing: [Asked] { asked.filter { $0.needs != nil } }
    public var notNeeding: [Asked] { asked.filter { $0.needs == nil } }
    /// Questions needing a fact whose fact was recalled.
    public var recalledNeeded: Double { share(needing, \.recalledNeeded) }
    /// Questions needing none that were given none.
    public var recalledNothing: Double { share(notNeeding, \.recalledNeeded) }
    /// Questions needing a fact answered right.
    public var answeredRightWithFact: Double { share(needing, \.answeredRight) }

    private func share(_ items: [Asked], _ test: (Asked) -> Bool) -> Double {
        items.isEmpty ? 1 : Double(items.filter(test).count) / Double(items.count)
    }

    /// Grades proposals against a conversation's labelled facts: a proposal is right when it holds
    /// the words of a labelled fact; each labelled fact counts once.
    public static func grade(_ proposals: [String], against facts: [MemoryEvaluationSet.Words], conversation: String) -> Proposed {
        var found = Set<Int>()
        let graded = proposals.map { text -> (text: String, right: Bool) in
            guard let index = facts.indices.first(where: { facts[$0].found(in: text) }) else { return (text, false) }
            found.insert(index)
            return (text, true)
        }
        return Proposed(conversation: conversation, proposals: graded, found: found.count, missed: facts.count - found.count)
    }
}
