public import Assistant
import Foundation
import Knowledge
import SibylCore

extension SibylRuntime.Conversations {
    /// Answers a chat the client keeps, with the same persona prompts, grounding decision and
    /// context fitting as a conversation; the answer goes to the operations log when it ends.
    public func complete(_ request: CompletionRequest) async throws -> CompletionOutcome {
        try await complete(request, loggingAs: .completions)
    }

    /// `complete`, logging under `category`, or not at all (an evaluation logs its own summary).
    func complete(_ request: CompletionRequest, loggingAs category: LogCategory?) async throws -> CompletionOutcome {
        var persona = try await persona(named: request.persona)
        let system = request.messages.filter { $0.role == .system }.map(\.text).filter { !$0.isEmpty }
        if !system.isEmpty { persona.systemPrompt += "\n\n" + system.joined(separator: "\n\n") }
        let history = request.messages.filter { $0.role != .system }
        guard let question = history.last(where: { $0.role == .user }), !question.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty || question.hasImages else {
            throw AssistantError.emptyQuestion
        }
        let decision = try await runtime.ground(question.text, scope: request.documents, loggingAs: category ?? .completions)
        if case .declined(let reply, let closest, _) = decision { return .declined(reply: reply, closest: closest) }
        let grounding = decision.grounding
        let answer = try await runtime.engine.answer(history, persona: persona, grounding: grounding, options: request.options)
        let sources = grounding?.citations ?? []
        let events = Self.ending(answer, sources: sources) { [weak runtime = self.runtime] result in
            guard let runtime, let category else { return }
            await runtime.conversations.logCompletion(result, model: answer.request.model, category: category)
        }
        return .answering(CompletionAnswer(model: answer.request.model, sources: sources, events: events))
    }

    /// The engine's stream, ended by the answer with the sources it cites; `ended` hears how it
    /// ended (finished, failed, or stopped by the client going away).
    private static func ending(
        _ answer: StatelessAnswer, sources: [Citation], ended: @escaping @Sendable (Result<CompletionEnding, any Error>) async -> Void
    ) -> AsyncThrowingStream<CompletionEvent, any Error> {
        // Told outside the answer's task, so that a client going away (which cancels it) is still logged.
        let report: @Sendable (Result<CompletionEnding, any Error>) async -> Void = { result in await Task { await ended(result) }.value }
        return AsyncThrowingStream { continuation in
            let task = Task {
                var pieces = ""
                var usage: TokenUsage?
                do {
                    for try await event in answer.events {
                        switch event {
                        case .delta(let piece):
                            pieces += piece
                            continuation.yield(.delta(piece))
                        case .usage(let reported):
                            usage = reported
                            continuation.yield(.usage(reported))
                        case .finished(let completion):
                            pieces = completion.text
                            usage = completion.usage ?? usage
                            let ending = CompletionEnding(
                                text: completion.text, model: completion.model.isEmpty ? answer.request.model : completion.model, usage: usage,
                                finishReason: completion.finishReason, citations: Grounding.cited(in: completion.text, from: sources)
                            )
                            continuation.yield(.finished(ending))
                            await report(.success(ending))
                            continuation.finish()
                            return
                        }
                    }
                    if Task.isCancelled { throw CancellationError() }
                    // A stream that ends without its completion event: the pieces are the answer.
                    let ending = CompletionEnding(
                        text: pieces, model: answer.request.model, usage: usage, finishReason: nil, citations: Grounding.cited(in: pieces, from: sources)
                    )
                    continuation.yield(.finished(ending))
                    await report(.success(ending))
                    continuation.finish()
                } catch {
                    await report(.failure(error))
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    private func logCompletion(_ result: Result<CompletionEnding, any Error>, model: String, category: LogCategory) async {
        switch result {
        case .success(let ending):
            await runtime.log(.info, category, "answered with \(ending.model)", details: CompletionLogDetails(ending))
        case .failure(let error) where error is CancellationError:
            await runtime.log(.info, category, "answer stopped (the client went away)", details: ["model": model])
        case .failure(let error):
            await runtime.log(.error, category, ConversationEngine.describe(error), details: ["model": model])
        }
    }
}

/// The log details of a completion.
struct CompletionLogDetails: Encodable {
    var model: String
    var promptTokens: Int
    var completionTokens: Int
    var citations: Int

    init(_ ending: CompletionEnding) {
        model = ending.model
        promptTokens = ending.usage?.promptTokens ?? 0
        completionTokens = ending.usage?.completionTokens ?? 0
        citations = ending.citations.count
    }
}
