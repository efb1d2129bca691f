import Assistant
import Foundation
import Hummingbird
import Knowledge
import SibylApp
import SibylCore

/// Questions and answers: ask in a conversation (the answer streams as server-sent events, or
/// comes whole), ask the last question again, follow an answer under way, stop it.
struct TurnRoutes: RouteCollectionAdding {
    let state: ServerState

    /// Where grounded answers come from.
    struct DocumentsChoice: Codable, Sendable {
        var collection: String?
        /// `hybrid` (default), `vector` or `lexical`.
        var mode: String?

        func scope() throws -> DocumentScope {
            guard let mode else { return DocumentScope(collection: collection) }
            guard let parsed = SearchMode(rawValue: mode) else { throw APIError.badRequest("'documents.mode' is hybrid, vector or lexical.") }
            return DocumentScope(collection: collection, mode: parsed)
        }
    }

    /// An image shown with a question.
    struct AttachmentUpload: Codable, Sendable {
        var mimeType: String?
        var filename: String?
        /// The bytes, base64.
        var data: String
    }

    /// A question.
    struct TurnRequest: Codable, Sendable {
        var text: String?
        var attachments: [AttachmentUpload]?
        /// Answer from the user's documents (with citations).
        var documents: DocumentsChoice?
        var model: String?
        var temperature: Double?
        var maxTokens: Int?
        var topP: Double?
        var presencePenalty: Double?
        var frequencyPenalty: Double?
        /// The language to answer in (`Korean`), whatever the question's.
        var answerLanguage: String?
        /// Stream events (the default), or answer once with the whole result.
        var stream: Bool?

        func options() throws -> TurnOptions {
            try TurnOptions(model: model, sampling: Sampling(temperature: temperature, maxTokens: maxTokens, topP: topP, presencePenalty: presencePenalty, frequencyPenalty: frequencyPenalty), answerLanguage: answerLanguage)
        }

        func images(limit: Int) throws -> [Attachment] {
            try (attachments ?? []).prefix(11).enumerated().map { index, upload in
                guard index < 10 else { throw APIError.badRequest("At most 10 images can go with a question.") }
                guard let data = Data(base64Encoded: upload.data, options: .ignoreUnknownCharacters), !data.isEmpty else {
                    throw APIError.badRequest("attachments[\(index)].data is not base64.")
                }
                guard data.count <= limit else { throw APIError.tooLarge(limit: limit) }
                guard let mime = ImageSniffer.mimeType(of: data) else {
                    throw APIError(.unsupportedMediaType, code: "unsupported_image", "attachments[\(index)] is not a PNG, JPEG, WebP or GIF image.")
                }
                return Attachment(kind: .image, mimeType: mime, filename: upload.filename, data: data)
            }
        }
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.post("conversations/:conversationId/turns") { request, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            let body = try await request.json(TurnRequest.self, limit: state.limits.uploadBytes)
            let text = body.text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            let images = try body.images(limit: state.limits.uploadBytes)
            guard !text.isEmpty || !images.isEmpty else { throw APIError.badRequest("'text' is empty.") }
            let request = AskRequest(text, attachments: images, conversation: .id(id), documents: try body.documents?.scope(), options: try body.options())
            let (result, slot) = try await state.withTurnSlot(for: context.ownerKey) { try await runtime.conversations.ask(request) }
            return await respond(result, streaming: body.stream ?? true, slot: slot, runtime: runtime)
        }
        group.post("conversations/:conversationId/retry") { request, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            let body = try await request.json(TurnRequest.self, limit: state.limits.jsonBodyBytes)
            let (documents, options) = (try body.documents?.scope(), try body.options())
            let (result, slot) = try await state.withTurnSlot(for: context.ownerKey) { try await runtime.conversations.retry(in: id, documents: documents, options: options) }
            return await respond(result, streaming: body.stream ?? true, slot: slot, runtime: runtime)
        }
        group.get("conversations/:conversationId/turns/current") { _, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            _ = try await runtime.conversations.conversation(id: id)
            guard let turn = runtime.conversations.answerUnderWay(in: id) else {
                throw APIError.notFound("No answer is being written in this conversation now; its messages hold the results.")
            }
            return Self.stream(turn)
        }
        group.delete("conversations/:conversationId/turns/current") { _, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            _ = try await runtime.conversations.conversation(id: id)
            guard let turn = runtime.conversations.answerUnderWay(in: id) else {
                throw APIError.notFound("No answer is being written in this conversation now.")
            }
            turn.cancel()
            await turn.waitUntilEnded()
            return JSONBody(Wire.Answer(conversationID: id, ending: turn.outcome))
        }
    }

    /// The answer as events (or, with `streaming` false, once it has ended); the client's slot is
    /// freed when the answer ends, whether or not the client stayed.
    func respond(_ result: AskResult, streaming: Bool, slot: TurnSlot, runtime: SibylRuntime) async -> Response {
        guard streaming else {
            let answer = await respondWhole(result, slot: slot, runtime: runtime)
            return (try? JSONBody(answer).response(status: .ok)) ?? Response(status: .ok)
        }
        slot.free(whenEnded: result)
        switch result.outcome {
        case .declined(let declined):
            let answer = Wire.Answer(declined: declined, conversationID: result.conversation.id)
            return EventStream.response { writer in writer.send("declined", answer) }
        case .answering(let turn):
            return Self.stream(turn)
        }
    }

    /// Waits for the answer to end and reports it.
    func respondWhole(_ result: AskResult, slot: TurnSlot, runtime: SibylRuntime) async -> Wire.Answer {
        slot.free(whenEnded: result)
        switch result.outcome {
        case .declined(let declined):
            return Wire.Answer(declined: declined, conversationID: result.conversation.id)
        case .answering(let turn):
            await turn.waitUntilEnded()
            return await Wire.Answer(conversationID: result.conversation.id, ending: turn.outcome, title: Self.title(of: turn, in: runtime))
        }
    }

    /// Every event of an answer, from its start; a client that leaves stops only its own copy.
    static func stream(_ turn: LiveTurn) -> Response {
        EventStream.response { writer in
            for await event in turn.events() {
                let wire = Wire.TurnEvent(event, conversationID: turn.conversationID, attachmentURL: ConversationRoutes.url)
                guard writer.send(wire.type, wire) else { return }
            }
        }
    }

    private static func title(of turn: LiveTurn, in runtime: SibylRuntime) async -> String? {
        guard let conversation = try? await runtime.conversations.conversation(id: turn.conversationID) else { return nil }
        return conversation.title
    }
}
