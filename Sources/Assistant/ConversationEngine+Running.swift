public import Foundation
public import SibylCore
import Storage

extension ConversationEngine {
    // MARK: Running

    func launch(_ plan: Plan, setup: ChatSetup, conversation: Conversation, question: Message, answer: Message) -> AssistantTurn {
        let (events, continuation) = AsyncStream<AssistantEvent>.makeStream()
        let turn = AssistantTurn(conversationID: conversation.id, questionID: question.id, answerID: answer.id, events: events)
        let task = Task {
            continuation.yield(.started(question: question, answerID: answer.id))
            if plan.droppedMessages > 0 { continuation.yield(.historyTrimmed(droppedMessages: plan.droppedMessages)) }
            let outcome = await self.generate(plan.request, setup: setup, answer: answer, continuation: continuation)
            if case .finished = outcome, conversation.title == nil, !Task.isCancelled {
                if let title = await self.makeTitle(conversation: conversation, question: question.text, model: setup.model, modelName: plan.request.model, style: setup.options.titles) {
                    continuation.yield(.titled(title))
                }
            }
            // Free the conversation before the stream ends: a consumer that sends its next message
            // as soon as this turn's events stop must not find the conversation still busy.
            self.release(conversation.id)
            continuation.finish()
        }
        turn.attach(task)
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        return turn
    }

    private func generate(_ request: ChatRequest, setup: ChatSetup, answer: Message, continuation: AsyncStream<AssistantEvent>.Continuation) async -> AssistantEvent {
        var message = answer
        var lastSave = ContinuousClock.now
        var request = request
        let question = request.messages
        do {
            let offered = await setup.tools?.tools() ?? []
            if !offered.isEmpty {
                request.tools = offered.map(\.tool)
                request.messages = ToolCalling.instructed(request.messages)
            }
            var rounds = 0
            while true {
                // What was written before the tools were called stays in front of the answer.
                let before = message.text
                var completion: ChatCompletion?
                // The check against the documents applies to an answer from them alone: once a tool
                // has answered, the answer may rest on its result instead.
                let checked = rounds == 0 ? answer.citations.filter(\.isPassage) : []
                // While tools are on offer, text that may be a call written out is shown only once it is known not to be.
                var held = ""
                var holding = !request.tools.isEmpty
                for try await event in SupportCheck.checked(setup.model.stream(request), answering: question, citations: checked) {
                    switch event {
                    case .delta(let text):
                        message.text += text
                        if holding {
                            held += text
                            if TextToolCalls.mayBeCall(held) { continue }
                            holding = false
                            continuation.yield(.delta(held))
                            held = ""
                        } else {
                            continuation.yield(.delta(text))
                        }
                        if ContinuousClock.now - lastSave >= setup.options.saveInterval {
                            drafts.save(message.text, of: message.id)
                            lastSave = .now
                        }
                    case .usage(let usage):
                        message.usage = usage
                        continuation.yield(.usage(usage))
                    case .finished(let finished):
                        completion = finished
                    }
                }
                guard var completion, !Task.isCancelled else { return await finish(&message, as: .cancelled, continuation: continuation) }
                if completion.toolCalls.isEmpty, !request.tools.isEmpty,
                   let written = TextToolCalls.calls(in: completion.text, offered: Set(request.tools.map(\.name))) {
                    completion.toolCalls = written
                    completion.text = ""
                    message.text = before
                } else if !held.isEmpty {
                    continuation.yield(.delta(held))
                }
                guard let tools = setup.tools, !completion.toolCalls.isEmpty, !request.tools.isEmpty else {
                    message.text = before + completion.text
                    message.model = completion.model
                    message.usage = completion.usage ?? message.usage
                    message.timings = completion.timings
                    message.citations = ToolCalling.kept(of: message.citations, citedIn: message.text)
                    return await finish(&message, as: .complete, continuation: continuation)
                }
                rounds += 1
                request.messages.append(.callingTools(completion.toolCalls, text: completion.text))
                for call in completion.toolCalls {
                    let number = (message.citations.map(\.number).max() ?? 0) + 1
                    let citation = await ToolCalling.call(call, offered: offered, tools: tools, number: number) { continuation.yield(.toolCalled($0)) }
                    continuation.yield(.toolAnswered(citation))
                    message.citations.append(citation)
                    request.messages.append(.toolResult(for: call.id, text: "[\(citation.number)] \(citation.quote)"))
                }
                try Task.checkCancellation()
                // The last round answers with what the tools gave: no more calls.
                if rounds >= ToolCalling.rounds { request.tools = [] }
            }
        } catch {
            if Task.isCancelled || Self.isCancellation(error) {
                return await finish(&message, as: .cancelled, continuation: continuation)
            }
            if let partial = (error as? any AnswerStreamFailure)?.partialAnswer, partial.count > message.text.count {
                message.text = partial
            }
            message.error = Self.describe(error)
            return await finish(&message, as: .failed, remedy: (error as? any RemedyProviding)?.remedy, continuation: continuation)
        }
    }

    private func finish(_ message: inout Message, as status: MessageStatus, remedy: Remedy? = nil, continuation: AsyncStream<AssistantEvent>.Continuation) async -> AssistantEvent {
        message.status = status
        drafts.discard(message.id)
        let event: AssistantEvent
        do {
            let final = message
            try await store.update(final)
            switch status {
            case .complete: event = .finished(message)
            case .cancelled: event = .cancelled(message)
            default: event = .failed(message, error: AnswerFailure(message.error ?? "unknown error", remedy: remedy))
            }
        } catch {
            message.status = .failed
            message.error = "the answer could not be saved: \(error.localizedDescription)"
            event = .failed(message, error: AnswerFailure(message.error ?? "the answer could not be saved"))
        }
        continuation.yield(event)
        return event
    }

    private func makeTitle(conversation: Conversation, question: String, model: any ChatModel, modelName: String, style: EngineOptions.TitleStyle) async -> String? {
        var title = TitleMaker.firstWords(of: question)
        if style == .model, case .chat = conversation.mode,
           let generated = await TitleMaker.askModel(model, modelName: modelName, question: question) {
            title = generated
        }
        do {
            let chosen = title
            try await store.setTitle(chosen, for: conversation.id)
            return title
        } catch {
            return nil
        }
    }

    /// Saves a question and an answer that needed no model (such as "nothing in your documents"),
    /// so the exchange stays in the conversation. With `replacingLastAnswer`, the conversation's
    /// last question is answered again: its answers are replaced, as `retry` does.
    @discardableResult
    public func record(question text: String, answer: String, attachments: [Attachment] = [], in conversationID: UUID, replacingLastAnswer: Bool = false) async throws -> Message {
        let conversation = try await loadConversation(conversationID)
        try claim(conversationID)
        defer { release(conversationID) }
        if replacingLastAnswer {
            let history = try await settledHistory(conversationID)
            guard let questionIndex = history.lastIndex(where: { $0.role == .user }) else { throw AssistantError.nothingToRetry }
            for old in history[(questionIndex + 1)...] { try await store.deleteMessage(id: old.id) }
        } else {
            try await store.append(Message(conversationID: conversationID, role: .user, text: text))
        }
        let reply = Message(conversationID: conversationID, role: .assistant, text: answer, attachments: attachments, status: .complete)
        try await store.append(reply)
        if conversation.title == nil, !replacingLastAnswer { try? await store.setTitle(TitleMaker.firstWords(of: text), for: conversationID) }
        return reply
    }

    /// Writes what was said (a line of live captions) into a conversation, with no answer: a
    /// transcript to read, search and export.
    @discardableResult
    public func record(transcript text: String, in conversationID: UUID) async throws -> Message {
        let conversation = try await loadConversation(conversationID)
        let message = Message(conversationID: conversationID, role: .user, text: text)
        try await store.append(message)
        if conversation.title == nil { try? await store.setTitle(TitleMaker.firstWords(of: text), for: conversationID) }
        return message
    }

    // MARK: Bookkeeping

    func loadConversation(_ id: UUID) async throws -> Conversation {
        guard let conversation = try await store.conversation(id: id) else { throw AssistantError.conversationNotFound(id) }
        return conversation
    }

    /// The conversation's messages, with answers left `pending` by a process that died marked
    /// failed; `busy` when another instance is writing an answer there now.
    func settledHistory(_ id: UUID) async throws -> [Message] {
        let elsewhere = try await store.settlePendingAnswers(in: id, reason: "interrupted: Sibyl stopped before the answer was complete")
        guard elsewhere == 0 else { throw AssistantError.busy }
        return try await store.messages(in: id)
    }

    /// Whether an answer is being written in the conversation now.
    public func isBusy(_ id: UUID) -> Bool {
        busy.withLock { $0.contains(id) }
    }

    /// A number that grows whenever an answer starts or stops being written: with the store's
    /// `changeCount`, it tells whether a listing of conversations is still current.
    public var activityCount: Int {
        busyChanges.load(ordering: .acquiring)
    }

    func claim(_ id: UUID) throws {
        let claimed = busy.withLock { $0.insert(id).inserted }
        guard claimed else { throw AssistantError.busy }
        busyChanges.add(1, ordering: .releasing)
    }

    func release(_ id: UUID) {
        _ = busy.withLock { $0.remove(id) }
        busyChanges.add(1, ordering: .releasing)
    }

    static func isCancellation(_ error: any Error) -> Bool {
        if error is CancellationError { return true }
        if (error as? any AnswerStreamFailure)?.isCancellation == true { return true }
        return false
    }

    /// An error in words, with what to do next when known; secrets redacted.
    public static func describe(_ error: any Error) -> String {
        var text = error.localizedDescription
        if let suggestion = (error as? any LocalizedError)?.recoverySuggestion { text += " \(suggestion)" }
        return Redaction.redact(text)
    }
}

extension Message {
    /// Whether the message belongs in the history a model sees: questions, and answers that completed.
    var isContext: Bool {
        role != .assistant || status == .complete
    }
}
