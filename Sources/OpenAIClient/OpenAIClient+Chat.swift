import AsyncHTTPClient
import Foundation
import NIOCore
import SibylCore

extension OpenAIClient: ChatModel {
    /// Asks for a whole answer in one response.
    public func complete(_ request: ChatRequest) async throws -> ChatCompletion {
        let started = ContinuousClock.now
        let (path, body) = try endpoint(for: request, stream: false)
        let response = try await sendJSON(.POST, path, body: body, as: ChatCompletionResponse.self)
        guard let choice = response.choices.first else {
            throw OpenAIError.invalidResponse("the answer has no choices")
        }
        let elapsed = ContinuousClock.now - started
        let text = choice.message?.content ?? choice.text ?? ""
        let calls = (choice.message?.toolCalls ?? []).enumerated().map { index, call in
            ChatToolCall(id: call.id ?? "call_\(index)", name: call.function?.name ?? "", arguments: call.function?.arguments ?? "{}")
        }
        return ChatCompletion(
            text: text,
            model: response.model ?? request.model,
            finishReason: choice.finishReason.map(FinishReason.init(rawValue:)),
            usage: response.usage?.tokenUsage,
            timings: Timings(timeToFirstToken: text.isEmpty ? nil : elapsed, total: elapsed),
            toolCalls: calls
        )
    }

    /// Streams the answer as server-sent events; the last event is `.finished` with the whole text.
    ///
    /// Errors before the stream starts arrive typed with the server's message. An error event
    /// inside the stream ends it with `OpenAIError.api(status: nil, …)`; a connection that breaks
    /// mid-answer ends it with `.streamInterrupted`, carrying the text received so far.
    /// Cancelling the consuming task stops the request at once.
    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatStreamEvent, any Error> {
        // Pulled on the consumer's own task: no task in between, so each token costs one wake-up
        // less, which matters when the client shares a few cores with a local model.
        let reader = ChatStreamReader(client: self, request: request)
        return AsyncThrowingStream { try await reader.next() }
    }

    /// Whether a model only has the legacy `/completions` endpoint (OpenAI's instruct and base
    /// models), so its answers are asked for there, with the conversation written out as a prompt.
    static func usesLegacyCompletions(_ model: String) -> Bool {
        let lowered = model.lowercased()
        return lowered.hasPrefix("gpt-3.5-turbo-instruct") || lowered.hasPrefix("text-davinci") || ["davinci-002", "babbage-002"].contains(lowered)
    }

    /// Where a request goes and what it sends: `/chat/completions`, or `/completions` for a model
    /// that has only that.
    func endpoint(for request: ChatRequest, stream: Bool) throws -> (path: String, body: Body) {
        if Self.usesLegacyCompletions(request.model) { return ("/completions", try Self.json(completionBody(request, stream: stream))) }
        return ("/chat/completions", try Self.json(chatBody(request, stream: stream)))
    }

    /// A chat request for the legacy endpoint: the messages written out as a transcript that ends
    /// where the assistant's answer begins, stopping before the model would write the user's next turn.
    /// Everything else is as the chat request would send it.
    func completionBody(_ request: ChatRequest, stream: Bool) -> ChatCompletionBody {
        var prompt = ""
        for message in request.messages {
            switch message.role {
            case .system: prompt += message.text + "\n\n"
            case .user: prompt += "User: " + message.text + "\n"
            case .assistant: prompt += "Assistant: " + message.text + "\n"
            }
        }
        prompt += "Assistant:"
        var body = chatBody(request, stream: stream)
        body.messages = nil
        body.prompt = prompt
        // The legacy endpoint knows only `max_tokens`.
        body.maxTokens = request.maxTokens
        body.maxCompletionTokens = nil
        body.stop = Array((["\nUser:"] + request.stop).prefix(4))
        return body
    }

    func chatBody(_ request: ChatRequest, stream: Bool) -> ChatCompletionBody {
        // OpenAI's reasoning models reject `max_tokens`; other servers often know only `max_tokens`.
        let useCompletionTokens = configuration.isOpenAI
        return ChatCompletionBody(
            model: request.model,
            messages: request.messages.map(WireMessage.init(message:)),
            temperature: request.temperature,
            maxTokens: useCompletionTokens ? nil : request.maxTokens,
            maxCompletionTokens: useCompletionTokens ? request.maxTokens : nil,
            topP: request.sampling.topP,
            presencePenalty: request.sampling.presencePenalty,
            frequencyPenalty: request.sampling.frequencyPenalty,
            stop: request.stop.isEmpty ? nil : request.stop,
            user: request.user,
            stream: stream ? true : nil,
            streamOptions: stream && configuration.includeStreamUsage ? .init(includeUsage: true) : nil,
            tools: request.tools.isEmpty ? nil : request.tools.map(WireTool.init(tool:))
        )
    }
}

/// Reads a streamed chat answer event by event, as the consumer asks for them.
///
/// `AsyncThrowingStream(unfolding:)` calls `next()` from one consumer, one call at a time, so the
/// mutable state here is never touched concurrently.
private final class ChatStreamReader: @unchecked Sendable {
    private let client: OpenAIClient
    private let request: ChatRequest
    private var body: HTTPClientResponse.Body.AsyncIterator?
    private var started = ContinuousClock.now
    private var accumulator: StreamAccumulator
    private var parser = ServerSentEventParser()
    private var pending: [ChatStreamEvent] = []
    private var pendingIndex = 0
    private var finished = false

    init(client: OpenAIClient, request: ChatRequest) {
        self.client = client
        self.request = request
        accumulator = StreamAccumulator(requestedModel: request.model)
    }

    func next() async throws -> ChatStreamEvent? {
        do {
            while pendingIndex == pending.count {
                if finished { return nil }
                pending.removeAll(keepingCapacity: true)
                pendingIndex = 0
                try await read()
            }
            defer { pendingIndex += 1 }
            return pending[pendingIndex]
        } catch {
            finished = true
            throw OpenAIClient.map(error).error
        }
    }

    private func read() async throws {
        guard var iterator = body else {
            started = .now
            let (path, payload) = try client.endpoint(for: request, stream: true)
            body = try await client.send(.POST, path, body: payload, accept: "text/event-stream").body.makeAsyncIterator()
            return
        }
        let buffer: ByteBuffer?
        do {
            buffer = try await iterator.next()
            body = iterator
        } catch let error as OpenAIError {
            throw error
        } catch {
            let mapped = OpenAIClient.map(error).error
            if case .cancelled = mapped { throw mapped }
            throw OpenAIError.streamInterrupted(partial: accumulator.text, reason: mapped.localizedDescription)
        }
        if let buffer {
            for event in parser.consume(buffer.readableBytesView) {
                try accumulator.handle(event, started: started, into: &pending)
                if accumulator.isDone { break }
            }
            if accumulator.isDone { try complete() }
        } else {
            for event in parser.finish() where !accumulator.isDone {
                try accumulator.handle(event, started: started, into: &pending)
            }
            try complete()
        }
    }

    /// Ends the stream with the usage and the whole answer.
    private func complete() throws {
        finished = true
        // A stream that ends without `[DONE]` and without a finish reason was cut off, even when
        // the transport reported a clean close (a proxy or a crashed server can do that).
        guard accumulator.isDone || accumulator.finishReason != nil else {
            throw OpenAIError.streamInterrupted(partial: accumulator.text, reason: "the connection closed before the answer was complete")
        }
        if let usage = accumulator.usage { pending.append(.usage(usage)) }
        pending.append(.finished(ChatCompletion(
            text: accumulator.text,
            model: accumulator.model,
            finishReason: accumulator.finishReason,
            usage: accumulator.usage,
            timings: Timings(timeToFirstToken: accumulator.firstTokenAt.map { $0 - started }, total: ContinuousClock.now - started),
            toolCalls: accumulator.toolCalls
        )))
    }
}

/// Collects what a chat stream has said so far.
private struct StreamAccumulator {
    var text = ""
    var model: String
    var usage: TokenUsage?
    var finishReason: FinishReason?
    var firstTokenAt: ContinuousClock.Instant?
    var isDone = false
    /// Tool calls arrive in pieces: the first names the call, the rest add to its arguments.
    private var calls: [Int: ChatToolCall] = [:]

    var toolCalls: [ChatToolCall] {
        calls.sorted { $0.key < $1.key }.map(\.value)
    }

    init(requestedModel: String) {
        model = requestedModel
    }

    mutating func handle(_ event: ServerSentEvent, started: ContinuousClock.Instant, into events: inout [ChatStreamEvent]) throws {
        let data = event.data.trimmingCharacters(in: .whitespaces)
        if data == "[DONE]" {
            isDone = true
            return
        }
        if data.isEmpty { return }
        let chunk: ChatCompletionChunk
        do {
            chunk = try JSONDecoder().decode(ChatCompletionChunk.self, from: Data(data.utf8))
        } catch {
            throw OpenAIError.invalidResponse("a stream event is not a chat chunk (\(OpenAIClient.describe(decodingError: error))): \(data.prefix(200))")
        }
        if let detail = chunk.error ?? (event.event == "error" ? OpenAIClient.errorDetail(from: Data(data.utf8)) : nil) {
            throw OpenAIError.api(status: nil, detail: detail, requestID: nil)
        }
        if let model = chunk.model, !model.isEmpty { self.model = model }
        if let usage = chunk.usage { self.usage = usage.tokenUsage }
        for choice in chunk.choices ?? [] {
            // A chat chunk's delta, or a legacy completion chunk's text.
            if let content = choice.delta?.content ?? choice.text, !content.isEmpty {
                if firstTokenAt == nil { firstTokenAt = .now }
                text += content
                events.append(.delta(content))
            }
            for piece in choice.delta?.toolCalls ?? [] {
                let index = piece.index ?? calls.count
                var call = calls[index] ?? ChatToolCall(id: "call_\(index)", name: "", arguments: "")
                if let id = piece.id, !id.isEmpty { call.id = id }
                if let name = piece.function?.name { call.name += name }
                if let arguments = piece.function?.arguments { call.arguments += arguments }
                calls[index] = call
            }
            if let reason = choice.finishReason { finishReason = FinishReason(rawValue: reason) }
        }
    }
}
