public import Assistant
public import Foundation
import Knowledge
import SibylCore

extension SibylRuntime {
    /// Decides how a question is answered from `scope`'s documents: from the passages relevant
    /// enough, or not at all (the plain reply, with the closest passages for the user to judge).
    /// A decline goes to the operations log under `category`.
    public func ground(_ question: String, scope: DocumentScope?, loggingAs category: LogCategory, conversation: UUID? = nil) async throws -> GroundingDecision {
        guard let scope else { return .ungrounded }
        switch try await grounder().ground(question, collection: scope.collection, mode: scope.mode) {
        case .grounded(let grounding, _):
            return .grounded(grounding)
        case .nothingRelevant(let closest, let threshold):
            await log(.info, category, "no passage relevant enough for: \(question.prefix(80))", details: DeclinedLogDetails(
                conversation: conversation, threshold: threshold, closest: closest.first?.vectorScore
            ))
            return .declined(reply: Grounding.declinedReply(closest: closest, threshold: threshold, question: question), closest: closest, threshold: threshold)
        }
    }
}

/// The log details of a declined grounded question.
struct DeclinedLogDetails: Encodable {
    var conversation: UUID?
    var threshold: Double
    var closest: Double?
}
