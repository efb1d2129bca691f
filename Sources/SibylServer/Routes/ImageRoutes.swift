import Assistant
import Foundation
import Hummingbird
import SibylApp
import SibylCore

/// Images: draw from a prompt (kept in a conversation, since provider links expire), the gallery,
/// and the bytes.
struct ImageRoutes: RouteCollectionAdding {
    let state: ServerState

    /// What drawing takes.
    struct ImagineRequest: Codable, Sendable {
        var prompt: String
        var size: String?
        var quality: String?
        var count: Int?
        var model: String?
        /// Keep the images in this conversation (default: a new one).
        var conversationId: String?
    }

    /// What drawing made.
    struct ImagineReport: Codable, Sendable {
        var conversationId: String
        var messageId: String
        var images: [Wire.Image]
    }

    /// The image model, and the sizes it draws.
    struct ImageChoices: Codable, Sendable {
        /// An image model with the sizes it draws and how many images one request may ask for.
        struct Model: Codable, Sendable {
            var id: String
            var sizes: [String]
            var maxCount: Int
        }

        var model: String?
        var sizes: [String]
        /// The models one may pick (the configured one first).
        var models: [Model]
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.get("images/options") { _, context in
            let conversations = try await state.runtime(for: context).conversations
            let choices = conversations.imageChoices()
            let models = await conversations.imageModels().map { ImageChoices.Model(id: $0.model, sizes: $0.sizes, maxCount: $0.most) }
            return JSONBody(ImageChoices(model: choices.model, sizes: choices.sizes, models: models))
        }
        group.post("images") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(ImagineRequest.self, limit: state.limits.jsonBodyBytes)
            var choice = ConversationChoice.new(NewConversation(source: .web))
            if let text = body.conversationId {
                guard let id = UUID(uuidString: text) else { throw APIError.notFound("There is no conversation '\(text)'.") }
                choice = .id(id)
            }
            let result = try await runtime.conversations.imagine(
                body.prompt, options: ImageOptions(model: body.model, size: body.size, quality: body.quality, count: body.count ?? 1), conversation: choice
            )
            let stored = result.message.attachments.map { attachment in
                StoredImage(
                    id: attachment.id, conversationID: result.conversation.id, messageID: result.message.id, mimeType: attachment.mimeType,
                    filename: attachment.filename, byteCount: attachment.data.count, prompt: body.prompt, createdAt: result.message.createdAt
                )
            }
            return JSONBody(ImagineReport(
                conversationId: result.conversation.id.wireString, messageId: result.message.id.wireString,
                images: stored.map { Wire.Image($0, url: Self.url($0.id)) }
            ), status: .created)
        }
        group.get("images") { request, context in
            let runtime = try await state.runtime(for: context)
            let images = try await runtime.conversations.images(limit: try request.integerQuery("limit", default: 50, in: 1...500), offset: try request.integerQuery("offset", default: 0, in: 0...Int(Int32.max)))
            return JSONBody(images.map { Wire.Image($0, url: Self.url($0.id)) })
        }
        group.get("images/:imageId") { request, context in
            let runtime = try await state.runtime(for: context)
            let attachment = try await runtime.conversations.attachment(try context.uuid("imageId"))
            guard attachment.kind == .image else { throw APIError.notFound("There is no image '\(attachment.id.wireString)'.") }
            return try BytesBody(data: attachment.data, contentType: attachment.mimeType, filename: attachment.filename).response(from: request, context: context)
        }
    }

    static func url(_ id: UUID) -> String { "/api/v1/images/\(id.wireString)" }
}
