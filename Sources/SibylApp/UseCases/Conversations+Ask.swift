public import Assistant
public import Foundation
import Knowledge
import SibylCore
import Storage

extension SibylRuntime.Conversations: Asking {
    /// Asks a question in a conversation, from the documents when `request.documents` is set.
    ///
    /// With documents, the passages that answer the question are found first; when none is
    /// relevant enough, no model is asked and the saved reply says so plainly, with the closest
    /// passages for the user to judge. Every question and its outcome go to the operations log.
    public func ask(_ request: AskRequest) async throws -> AskResult {
        let question = request.question.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !question.isEmpty || !request.attachments.isEmpty else { throw AssistantError.emptyQuestion }
        let conversation = try await conversation(for: request.conversation)
        return try await answer(question, attachments: request.attachments, in: conversation, documents: request.documents, options: request.options, retrying: false)
    }

    /// Asks a conversation's last question again, replacing its answer; grounded the same way as
    /// `ask` when `documents` is set.
    public func retry(in conversationID: UUID, documents: DocumentScope? = nil, options: TurnOptions = TurnOptions()) async throws -> AskResult {
        let conversation = try await conversation(id: conversationID)
        let question = try await runtime.engine.lastQuestion(in: conversationID)
        return try await answer(question.text, attachments: question.attachments, in: conversation, documents: documents, options: options, retrying: true)
    }

    /// Stops the answer being written in a conversation; false when none is.
    @discardableResult
    public func cancelAnswer(inConversation conversationID: UUID) -> Bool {
        guard let turn = runtime.turns.turn(inConversation: conversationID) else { return false }
        turn.cancel()
        return true
    }

    private func answer(
        _ question: String, attachments: [Attachment], in conversation: Conversation, documents: DocumentScope?, options: TurnOptions, retrying: Bool
    ) async throws -> AskResult {
        let decision = try await runtime.ground(question, scope: documents, loggingAs: .askDocs, conversation: conversation.id)
        if case .declined(let text, let closest, let threshold) = decision {
            let reply = try await runtime.engine.record(question: question, answer: text, in: conversation.id, replacingLastAnswer: retrying)
            return AskResult(conversation: conversation, outcome: .declined(DeclinedAnswer(question: question, reply: reply, closest: closest, threshold: threshold)))
        }
        let grounding = decision.grounding
        // What the user asked Sibyl to remember, where it bears on the question (chats only).
        var options = options
        if case .chat = conversation.mode { options = options.remembering(await runtime.memory.relevant(to: question)) }
        let turn = retrying
            ? try await runtime.engine.retry(in: conversation.id, grounding: grounding, options: options)
            : try await runtime.engine.send(question, attachments: attachments, in: conversation.id, grounding: grounding, options: options)
        let grounded = grounding != nil
        let live = runtime.turns.register(turn) { [weak runtime = self.runtime] _, last in
            await runtime?.conversations.logAnswer(last, conversation: conversation.id, grounded: grounded)
        }
        return AskResult(conversation: conversation, outcome: .answering(live))
    }

    private func logAnswer(_ last: AssistantEvent?, conversation: UUID, grounded: Bool) async {
        let category: LogCategory = grounded ? .askDocs : .ask
        let entry: (LogEntry.Level, String, AnswerLogDetails)
        switch last {
        case .finished(let message):
            entry = (.info, "answered with \(message.model ?? "the chat model")", AnswerLogDetails(message, conversation: conversation))
        case .failed(let message, let error):
            entry = (.error, error.text, AnswerLogDetails(message, conversation: conversation))
        case .cancelled(let message):
            entry = (.info, "answer stopped", AnswerLogDetails(message, conversation: conversation))
        default:
            return
        }
        await runtime.log(entry.0, category, entry.1, details: entry.2)
    }
}

/// The log details of an answer.
struct AnswerLogDetails: Encodable {
    var conversation: UUID
    var message: UUID
    var status: MessageStatus
    var model: String?
    var promptTokens: Int?
    var completionTokens: Int?
    var totalMs: Int?
    var citations: Int

    init(_ message: Message, conversation: UUID) {
        self.conversation = conversation
        self.message = message.id
        status = message.status
        model = message.model
        promptTokens = message.usage?.promptTokens
        completionTokens = message.usage?.completionTokens
        totalMs = message.timings?.totalMilliseconds
        citations = message.citations.count
    }
}
