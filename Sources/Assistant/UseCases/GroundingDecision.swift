import Foundation
public import Knowledge
import SibylCore

/// What the documents say to a question: decided in one place for every surface (a conversation's
/// turn, `/v1/chat/completions`, a spoken question, the glasses).
public enum GroundingDecision: Sendable {
    /// No documents were asked for: the model answers from what it knows.
    case ungrounded
    /// Passages relevant enough, numbered as the answer will cite them.
    case grounded(Grounding)
    /// No passage was relevant enough: `reply` is said instead of an answer, and no model is asked.
    case declined(reply: String, closest: [SearchResult], threshold: Double)

    /// The sources an answer must rest on, when there are any.
    public var grounding: Grounding? {
        if case .grounded(let grounding) = self { return grounding }
        return nil
    }
}
