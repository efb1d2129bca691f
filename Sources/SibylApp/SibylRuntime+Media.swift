import Assistant
import Foundation
import LocalEngines
import SibylConfig
import SibylCore
import Storage

extension SibylRuntime {
    /// Speech to text (or translated into English). Audio in any format a browser or phone records
    /// is accepted: for the local engine it is decoded with ffmpeg first.
    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions = TranscriptionOptions()) async throws -> Transcription {
        guard !audio.data.isEmpty else { throw AssistantError.emptyAudio }
        let input = providers.transcribesLocally ? try await AudioConverter().speechWAV(from: audio) : audio
        return try await providers.transcriber().transcribe(input, options: options)
    }

    /// Text to speech. The local voice speaks WAV; other formats are encoded from it with ffmpeg.
    public func speak(_ text: String, options: SpeechOptions = SpeechOptions()) async throws -> AudioFile {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SpeechError.emptyText }
        var options = options
        if options.voice == nil { options.voice = settings[.ttsVoice] }
        let synthesizer = try providers.speechSynthesizer()
        guard providers.speaksLocally, options.format != .wav, options.format != .pcm else {
            return try await synthesizer.synthesize(trimmed, options: options)
        }
        let target = options.format
        options.format = .wav
        let wav = try await synthesizer.synthesize(trimmed, options: options)
        return try await AudioConverter().encode(wav, as: target)
    }

    /// Speaks a saved answer.
    public func speak(message messageID: UUID, in conversationID: UUID, options: SpeechOptions = SpeechOptions()) async throws -> AudioFile {
        let message = try await message(messageID, in: conversationID)
        let text = GlassesText.plain(message.text)
        guard !text.isEmpty else { throw SpeechError.emptyText }
        return try await speak(text, options: options)
    }

    /// Draws images for a prompt and keeps them, in the given conversation or a new one titled
    /// with the prompt: provider links expire, so the bytes are stored at once.
    public func imagine(_ prompt: String, options: ImageOptions = ImageOptions(), conversation choice: ConversationChoice) async throws -> ImagineResult {
        let text = prompt.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw AssistantError.emptyPrompt }
        guard (1...10).contains(options.count) else { throw AssistantError.invalidImageCount(options.count) }
        let images: [GeneratedImage]
        do {
            images = try await providers.imageGenerator().generateImages(text, options: options)
        } catch {
            await log(.error, .imagine, ConversationEngine.describe(error))
            throw error
        }
        let conversation = try await conversation(for: choice)
        let attachments = images.enumerated().map { index, image in
            Attachment(kind: .image, mimeType: image.mimeType, filename: "image-\(index + 1).\(image.fileExtension)", data: image.data)
        }
        let reply = try await engine.record(question: text, answer: images.compactMap(\.revisedPrompt).first ?? "", attachments: attachments, in: conversation.id)
        await log(.info, .imagine, "drew \(images.count) image\(images.count == 1 ? "" : "s")", details: ["conversation": conversation.id.uuidString.lowercased()])
        return ImagineResult(conversation: conversation, message: reply, images: images)
    }

    /// Images Sibyl drew, newest first.
    public func images(limit: Int = 50, offset: Int = 0) async throws -> [StoredImage] {
        try await store.generatedImages(limit: min(max(limit, 1), 500), offset: max(offset, 0)).map { found in
            StoredImage(
                id: found.attachment.id, conversationID: found.conversationID, messageID: found.messageID, mimeType: found.attachment.mimeType,
                filename: found.attachment.filename, byteCount: found.byteCount, prompt: found.prompt, createdAt: found.createdAt
            )
        }
    }

    /// An attachment's bytes (an image drawn or shown, a recording).
    public func attachment(_ id: UUID) async throws -> Attachment {
        guard let attachment = try await store.attachment(id: id) else { throw AssistantError.attachmentNotFound(id) }
        return attachment
    }
}
