public import Assistant
public import Foundation
import LocalEngines
import SibylConfig
public import SibylCore
import Storage

extension SibylRuntime.Conversations {
    /// Draws images for a prompt and keeps them, in the given conversation or a new one titled
    /// with the prompt: provider links expire, so the bytes are stored at once.
    public func imagine(_ prompt: String, options: ImageOptions = ImageOptions(), conversation choice: ConversationChoice) async throws -> ImagineResult {
        let text = prompt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw AssistantError.emptyPrompt }
        let model = options.model ?? (try? runtime.providers.provider(for: .images).model)
        guard (1...(model.map(ImageSizes.mostPerRequest(by:)) ?? 10)).contains(options.count) else {
            throw AssistantError.invalidImageCount(options.count, model: model)
        }
        if let size = options.size, let model, let sizes = ImageSizes.accepted(by: model), !sizes.contains(size) {
            throw AssistantError.invalidImageSize(size, model: model, accepted: sizes)
        }
        let images: [GeneratedImage]
        do {
            images = try await runtime.providers.imageGenerator().generateImages(text, options: options)
        } catch {
            await runtime.log(.error, .imagine, ConversationEngine.describe(error))
            throw error
        }
        let conversation = try await conversation(for: choice)
        let attachments = images.enumerated().map { index, image in
            Attachment(kind: .image, mimeType: image.mimeType, filename: "image-\(index + 1).\(image.fileExtension)", data: image.data)
        }
        let reply = try await runtime.engine.record(question: text, answer: images.compactMap(\.revisedPrompt).first ?? "", attachments: attachments, in: conversation.id)
        await runtime.log(.info, .imagine, "drew \(images.count) image\(images.count == 1 ? "" : "s")", details: ["conversation": conversation.id.uuidString.lowercased()])
        return ImagineResult(conversation: conversation, message: reply, images: images)
    }

    /// The image model drawing uses, and the sizes to offer for it (the ones it is known to take,
    /// else the common ones).
    public func imageChoices() -> (model: String?, sizes: [String]) {
        let model = try? runtime.providers.provider(for: .images).model
        return (model, model.flatMap(ImageSizes.accepted(by:)) ?? ImageSizes.common)
    }

    /// The image models one may pick, each with the sizes to offer and how many images one
    /// request may ask for: the configured one first, the ones Sibyl knows, and those the
    /// provider lists that draw (when it answers).
    public func imageModels() async -> [(model: String, sizes: [String], most: Int)] {
        var names: [String] = []
        if let configured = try? runtime.providers.provider(for: .images).model { names.append(configured) }
        names += ImageSizes.knownModels
        if let (client, _) = try? runtime.providers.remoteClient(for: .images), let listed = try? await client.models() {
            names += listed.map(\.id).filter(ImageSizes.draws).sorted()
        }
        var seen: Set<String> = []
        return names.filter { seen.insert($0.lowercased()).inserted }.map { ($0, ImageSizes.accepted(by: $0) ?? ImageSizes.common, ImageSizes.mostPerRequest(by: $0)) }
    }

    /// Images Sibyl drew, newest first.
    public func images(limit: Int = 50, offset: Int = 0) async throws -> [StoredImage] {
        try await runtime.store.generatedImages(limit: min(max(limit, 1), 500), offset: max(offset, 0)).map { found in
            StoredImage(
                id: found.attachment.id, conversationID: found.conversationID, messageID: found.messageID, mimeType: found.attachment.mimeType,
                filename: found.attachment.filename, byteCount: found.byteCount, prompt: found.prompt, createdAt: found.createdAt
            )
        }
    }

    /// An attachment's bytes (an image drawn or shown, a recording).
    public func attachment(_ id: UUID) async throws -> Attachment {
        guard let attachment = try await runtime.store.attachment(id: id) else { throw AssistantError.attachmentNotFound(id) }
        return attachment
    }
}
