import Assistant
import Foundation
import Hummingbird
import Knowledge
import SibylApp
import SibylCore

/// `POST /v1/chat/completions`: a persona answers the client's messages, whole or streamed in
/// OpenAI's framing (`data: {chunk}` events, then `data: [DONE]`), with usage when asked for.
struct ChatCompletions: Sendable {
    let state: ServerState
    /// The caller's data: its personas, documents and log.
    let runtime: SibylRuntime

    /// The persona and grounding a model name stands for.
    struct Choice: Sendable {
        var persona: String
        var documents: DocumentScope?
    }

    func respond(to body: OpenAIWire.ChatRequest, client: String) async throws -> Response {
        let choice = try await choose(body.model)
        guard !body.messages.isEmpty else {
            throw APIError(.badRequest, code: "invalid_value", "'messages' must hold at least one message.", parameter: "messages")
        }
        if let n = body.n, n != 1 { throw APIError(.badRequest, code: "invalid_value", "Only one choice (n = 1) is supported.", parameter: "n") }
        if let tools = body.tools, !tools.isEmpty {
            throw APIError(.badRequest, code: "unsupported_parameter", "Tools are not supported by Sibyl's models.", parameter: "tools")
        }
        let messages = try body.messages.enumerated().map { try Self.message($0.element, index: $0.offset) }
        let request = CompletionRequest(messages: messages, persona: choice.persona, documents: choice.documents, options: try Self.options(body))
        let (outcome, slot) = try await state.withTurnSlot(for: client) { try await runtime.conversations.complete(request) }
        let identity = Identity(id: "chatcmpl-\(UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased())", created: Int(Date().timeIntervalSince1970), model: body.model)
        if body.stream == true {
            return stream(outcome, identity: identity, includeUsage: body.streamOptions?.includeUsage == true, slot: slot)
        }
        defer { slot.free() }
        return try JSONBody(try await whole(outcome, identity: identity)).response(status: .ok)
    }

    /// The sampling the client asked for, refused as OpenAI refuses it (naming the parameter).
    static func options(_ body: OpenAIWire.ChatRequest) throws -> TurnOptions {
        let sampling = Sampling(
            temperature: body.temperature, maxTokens: body.maxCompletionTokens ?? body.maxTokens,
            topP: body.topP, presencePenalty: body.presencePenalty, frequencyPenalty: body.frequencyPenalty
        )
        do {
            try sampling.check()
        } catch {
            let parameter = if case .maxTokens = error, body.maxCompletionTokens != nil { "max_completion_tokens" } else { error.parameter }
            throw APIError(.badRequest, code: "invalid_value", error.description, parameter: parameter)
        }
        return try TurnOptions(model: nil, sampling: sampling)
    }

    /// What every chunk of one completion shares.
    struct Identity: Sendable {
        var id: String
        var created: Int
        var model: String
    }

    /// `sibyl-PERSONA` or `sibyl-PERSONA-docs`.
    func choose(_ model: String) async throws -> Choice {
        guard model.hasPrefix("sibyl-") else { throw OpenAICompatibleRoutes.unknownModel(model) }
        var name = String(model.dropFirst("sibyl-".count))
        var documents: DocumentScope?
        if name.hasSuffix("-docs") {
            name = String(name.dropLast("-docs".count))
            documents = DocumentScope()
        }
        guard let persona = try? await runtime.conversations.persona(named: name) else { throw OpenAICompatibleRoutes.unknownModel(model) }
        return Choice(persona: persona.name, documents: documents)
    }

    /// A client's message in Sibyl's form; images come as data URLs or links.
    static func message(_ message: OpenAIWire.Message, index: Int) throws -> ChatMessage {
        let role: ChatRole
        switch message.role {
        case "system", "developer": role = .system
        case "user": role = .user
        case "assistant": role = .assistant
        default:
            throw APIError(.badRequest, code: "invalid_value", "messages[\(index)].role '\(message.role)' is not supported (system, developer, user, assistant).", parameter: "messages")
        }
        switch message.content {
        case nil: return ChatMessage(role: role, text: "")
        case .text(let text): return ChatMessage(role: role, text: text)
        case .parts(let parts):
            return ChatMessage(role: role, parts: try parts.map { part in
                switch part.type {
                case "text": return .text(part.text ?? "")
                case "image_url":
                    guard let url = part.imageURL?.url else { throw APIError.badRequest("messages[\(index)] has an image_url part without a url.") }
                    let detail = part.imageURL?.detail.flatMap(ImageInput.Detail.init(rawValue:))
                    return .image(ImageInput(source: try Self.imageSource(url, index: index), detail: detail))
                default:
                    throw APIError(.badRequest, code: "invalid_value", "messages[\(index)] has a '\(part.type)' part; text and image_url are supported.", parameter: "messages")
                }
            })
        }
    }

    static func imageSource(_ url: String, index: Int) throws -> ImageInput.Source {
        guard url.hasPrefix("data:") else { return .url(url) }
        guard let comma = url.firstIndex(of: ","), url[..<comma].hasSuffix(";base64"),
              let data = Data(base64Encoded: String(url[url.index(after: comma)...])), let mime = ImageSniffer.mimeType(of: data) else {
            throw APIError.badRequest("messages[\(index)] has an image data URL that is not a base64 PNG, JPEG, WebP or GIF.")
        }
        return .data(data, mimeType: mime)
    }

    /// The whole answer, once it is complete, followed by the sources it cites.
    private func whole(_ outcome: CompletionOutcome, identity: Identity) async throws -> OpenAIWire.ChatCompletion {
        var text = ""
        var usage: TokenUsage?
        var finish = "stop"
        switch outcome {
        case .declined(let reply, _):
            text = reply
        case .answering(let answer):
            let ending = try await answer.whole()
            text = ending.text + ending.sourcesText
            usage = ending.usage
            finish = ending.finishReason?.rawValue ?? "stop"
        }
        return OpenAIWire.ChatCompletion(
            id: identity.id, created: identity.created, model: identity.model,
            choices: [.init(index: 0, message: .init(content: text), finishReason: finish)], usage: OpenAIWire.Usage(usage)
        )
    }

    /// The answer as OpenAI's chunks, written as they come, then the sources it cites. A client
    /// that goes away stops the answer (the next write fails, and the model's stream is dropped with it).
    private func stream(_ outcome: CompletionOutcome, identity: Identity, includeUsage: Bool, slot: TurnSlot) -> Response {
        EventStream.direct { send, end in
            // Frees the client's slot however the response ends, even when its body is never written.
            defer { slot.free() }
            func chunk(_ delta: OpenAIWire.ChatChunk.Delta, finish: String? = nil) async throws {
                let value = OpenAIWire.ChatChunk(
                    id: identity.id, created: identity.created, model: identity.model,
                    choices: [.init(delta: delta, finishReason: finish)], usage: includeUsage ? .some(nil) : nil
                )
                try await send("data: \(WireCoding.jsonText(value))\n\n")
            }
            try await chunk(.init(role: "assistant", content: ""))
            var usage: TokenUsage?
            var finish = "stop"
            switch outcome {
            case .declined(let reply, _):
                try await chunk(.init(content: reply))
            case .answering(let answer):
                do {
                    for try await event in answer.events {
                        switch event {
                        case .delta(let piece):
                            try await chunk(.init(content: piece))
                        case .usage(let reported):
                            usage = reported
                        case .finished(let ending):
                            usage = ending.usage ?? usage
                            finish = ending.finishReason?.rawValue ?? "stop"
                            if !ending.sourcesText.isEmpty { try await chunk(.init(content: ending.sourcesText)) }
                        }
                    }
                } catch let error as ClientGone {
                    throw error
                } catch {
                    // The stream has begun, so the error can only be told in the stream, as OpenAI does.
                    let apiError = APIError.from(error)
                    try await send("data: \(WireCoding.jsonText(OpenAIErrorBody(error: .init(message: apiError.message, type: "server_error", code: apiError.code))))\n\n")
                    try await send("data: [DONE]\n\n")
                    return
                }
            }
            try await chunk(.init(), finish: finish)
            if includeUsage {
                let last = OpenAIWire.ChatChunk(id: identity.id, created: identity.created, model: identity.model, choices: [], usage: .some(OpenAIWire.Usage(usage)))
                try await send("data: \(WireCoding.jsonText(last))\n\n")
            }
            try await send("data: [DONE]\n\n")
            try await end()
        }
    }
}
