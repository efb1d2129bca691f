public import Foundation
import Synchronization

/// One answer being written: its events, and a way to stop it.
public final class AssistantTurn: Sendable {
    /// The events of this answer; the stream ends after `.finished`, `.failed` or `.cancelled` (and `.titled`, when a title was made).
    public let events: AsyncStream<AssistantEvent>
    /// The conversation the answer belongs to.
    public let conversationID: UUID
    /// The question's message.
    public let questionID: UUID
    /// The answer's message, saved as it grows: the turn's id.
    public let answerID: UUID
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(conversationID: UUID, questionID: UUID, answerID: UUID, events: AsyncStream<AssistantEvent>) {
        self.conversationID = conversationID
        self.questionID = questionID
        self.answerID = answerID
        self.events = events
    }

    func attach(_ task: Task<Void, Never>) {
        self.task.withLock { $0 = task }
    }

    /// Stops the answer; what was written so far is kept and marked cancelled.
    public func cancel() {
        task.withLock { $0 }?.cancel()
    }
}
