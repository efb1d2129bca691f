public import Foundation
public import SibylCore

/// What happens during one answer, in the order it happens. The CLI, the server and the glasses all consume these.
public enum AssistantEvent: Sendable {
    /// The question is saved and an answer has begun; `answerID` names the answer's message.
    case started(question: Message, answerID: UUID)
    /// More answer text.
    case delta(String)
    /// Token counts reported by the provider.
    case usage(TokenUsage)
    /// The model called a tool; its result follows as `toolAnswered`.
    case toolCalled(ToolUse)
    /// A tool answered: its result, numbered as a source the answer can cite.
    case toolAnswered(Citation)
    /// Older history was left out to fit the model's context.
    case historyTrimmed(droppedMessages: Int)
    /// The answer is complete and saved.
    case finished(Message)
    /// The answer failed; the message keeps the partial text and the error, and can be retried.
    case failed(Message, error: AnswerFailure)
    /// The answer was stopped by the user; the partial text is kept.
    case cancelled(Message)
    /// The conversation got its automatic title.
    case titled(String)
}

/// Why an answer failed: words for any surface, and what the user can do when that is known.
public struct AnswerFailure: Sendable, Hashable, CustomStringConvertible {
    public var text: String
    public var remedy: Remedy?

    public init(_ text: String, remedy: Remedy? = nil) {
        self.text = text
        self.remedy = remedy
    }

    public var description: String { text }
}
