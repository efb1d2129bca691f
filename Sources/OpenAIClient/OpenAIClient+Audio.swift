import Foundation
import SibylCore

extension OpenAIClient: Transcriber, SpeechSynthesizer {
    /// The most characters the speech endpoint takes in one request.
    static let speechInputLimit = 4096

    /// Transcribes a recording, or translates it into English when `options.translate` is set.
    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        let body = transcriptionForm(audio, options: options)
        let path = options.translate ? "/audio/translations" : "/audio/transcriptions"
        if options.format != .text {
            // Subtitles come back as the document itself, not as JSON.
            let (data, _) = try await sendAndCollect(.POST, path, body: body, accept: "text/plain")
            return Transcription(text: String(decoding: data, as: UTF8.self), language: options.translate ? nil : options.language)
        }
        let response = try await sendJSON(.POST, path, body: body, as: TranscriptionResponse.self)
        return Transcription(
            text: response.text.trimmingCharacters(in: .whitespacesAndNewlines),
            // The spoken language, as the local engine reports it; OpenAI names it only for transcriptions.
            language: response.language ?? (options.translate ? nil : options.language),
            duration: response.duration
        )
    }

    func transcriptionForm(_ audio: AudioFile, options: TranscriptionOptions) -> Body {
        var form = MultipartForm()
        form.addFile("file", filename: "audio.\(audio.format.rawValue)", mimeType: audio.format.mimeType, data: audio.data)
        form.addField("model", options.model ?? configuration.defaultModels.transcription)
        // Translation always produces English, so the endpoint takes no language.
        if let language = options.language, !options.translate { form.addField("language", language) }
        if let prompt = options.prompt { form.addField("prompt", prompt) }
        if let temperature = options.temperature { form.addField("temperature", String(temperature)) }
        form.addField("response_format", options.format == .text ? "json" : options.format.rawValue)
        return Body(data: form.finished(), contentType: form.contentType)
    }

    /// Speaks text. Text over 4,096 characters is split at sentence boundaries and the audio joined,
    /// which works for formats that can be concatenated: WAV, raw PCM and MP3.
    public func synthesize(_ text: String, options: SpeechOptions) async throws -> AudioFile {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw OpenAIError.invalidRequest("there is no text to speak") }
        let pieces = TextSplitter.split(trimmed, limit: Self.speechInputLimit)
        if pieces.count > 1, ![.wav, .pcm, .mp3].contains(options.format) {
            throw OpenAIError.invalidRequest("text over \(Self.speechInputLimit) characters can only be joined as wav, pcm or mp3, not \(options.format.rawValue)")
        }
        var parts: [Data] = []
        for piece in pieces {
            let body = try Self.json(speechBody(piece, options: options))
            let (data, _) = try await sendAndCollect(.POST, "/audio/speech", body: body, accept: "*/*")
            parts.append(data)
        }
        return AudioFile(data: try Self.join(parts, format: options.format), format: options.format)
    }

    func speechBody(_ text: String, options: SpeechOptions) -> SpeechBody {
        SpeechBody(
            model: options.model ?? configuration.defaultModels.speech,
            input: text,
            voice: options.voice ?? configuration.defaultModels.voice,
            responseFormat: options.format.rawValue,
            speed: options.speed
        )
    }

    static func join(_ parts: [Data], format: AudioFormat) throws -> Data {
        guard parts.count > 1 else { return parts.first ?? Data() }
        switch format {
        case .wav:
            do {
                return try WAVAudio.concatenate(parts.map { try WAVAudio(parsing: $0) }).encoded()
            } catch {
                throw OpenAIError.invalidResponse("the speech pieces could not be joined: \(error.localizedDescription)")
            }
        default:
            // Raw PCM and MP3 frames play back correctly when simply appended.
            return parts.reduce(into: Data()) { $0.append($1) }
        }
    }
}
