import Assistant
import Foundation
import Hummingbird
import Knowledge
import SibylApp
import SibylCore

/// Speech: transcription of uploaded audio (any format a browser records), text to speech, a saved
/// answer spoken, and the spoken question (audio in → transcript → answer → speech).
struct AudioRoutes: RouteCollectionAdding {
    let state: ServerState

    /// What speaking takes.
    struct SpeechRequest: Codable, Sendable {
        var text: String
        var voice: String?
        /// wav (default), mp3, opus, aac, flac or pcm.
        var format: String?
        var speed: Double?
    }

    /// A spoken question's outcome when it is not streamed.
    struct VoiceAnswer: Codable, Sendable {
        var transcript: Wire.Transcription
        var answer: Wire.Answer
        /// Where the answer is spoken, when it completed.
        var speechUrl: String?
    }

    func add(to group: RouterGroup<SibylRequestContext>) {
        group.post("transcriptions") { request, context in
            let runtime = try await state.runtime(for: context)
            let form = try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: 1)
            let audio = try Self.audio(in: form)
            let options = TranscriptionOptions(translate: form.field("translate") == "true", language: form.field("language"), prompt: form.field("prompt"))
            return JSONBody(Wire.Transcription(try await runtime.voice.transcribe(audio, options: options)))
        }
        group.post("speech") { request, context in
            let runtime = try await state.runtime(for: context)
            let body = try await request.json(SpeechRequest.self, limit: state.limits.jsonBodyBytes)
            let audio = try await runtime.voice.speak(body.text, options: try Self.speechOptions(voice: body.voice, format: body.format, speed: body.speed))
            return try BytesBody(data: audio.data, contentType: audio.format.mimeType).response(from: request, context: context)
        }
        group.get("voices") { _, context in
            let runtime = try await state.runtime(for: context)
            return JSONBody(try await runtime.voice.voices())
        }
        group.get("conversations/:conversationId/messages/:messageId/speech") { request, context in
            let runtime = try await state.runtime(for: context)
            let options = try Self.speechOptions(voice: request.query("voice"), format: request.query("format"), speed: request.query("speed").flatMap(Double.init))
            let audio = try await runtime.voice.speak(message: try context.uuid("messageId"), in: try context.uuid("conversationId"), options: options)
            return try BytesBody(data: audio.data, contentType: audio.format.mimeType).response(from: request, context: context)
        }
        group.post("conversations/:conversationId/voice") { request, context in
            let runtime = try await state.runtime(for: context)
            let id = try context.uuid("conversationId")
            _ = try await runtime.conversations.conversation(id: id)
            let receiving = ContinuousClock.now
            let form = try await MultipartForm.read(request, limit: state.limits.uploadBytes, maxFiles: 1)
            let received = ContinuousClock.now - receiving
            let audio = try Self.audio(in: form)
            var documents: DocumentScope?
            if form.field("documents") == "true" || form.field("collection") != nil {
                documents = DocumentScope(collection: form.field("collection"), mode: form.field("searchMode").flatMap(SearchMode.init(rawValue:)) ?? .hybrid)
            }
            let request = AskRequest("", conversation: .id(id), documents: documents, options: try TurnOptions(model: form.field("model"), answerLanguage: form.field("answerLanguage")))
            let transcription = TranscriptionOptions(language: form.field("language"))
            // speak=sentences: each sentence of the answer is spoken as soon as it is written.
            let speaking = form.field("speak") == "sentences"
                ? try Self.speechOptions(voice: form.field("voice"), format: form.field("speechFormat"), speed: form.field("speed").flatMap(Double.init))
                : nil
            let (turn, slot) = try await state.withTurnSlot(for: context.ownerKey) { try await runtime.voice.ask(audio, request: request, transcription: transcription, languageHint: form.field("languageHint")) }
            if form.field("stream") == "false" {
                let transcript = Wire.Transcription(turn.transcript, timings: Wire.VoiceTimings(receive: received, decode: turn.decoding, transcribe: turn.transcribing))
                let answer = await TurnRoutes(state: state).respondWhole(turn.ask, slot: slot, runtime: runtime)
                let speech = answer.status == "complete" ? answer.messageId.map { "/api/v1/conversations/\(id.wireString)/messages/\($0)/speech" } : nil
                return try JSONBody(VoiceAnswer(transcript: transcript, answer: answer, speechUrl: speech)).response(status: .ok)
            }
            slot.free(whenEnded: turn.ask)
            let events = SpokenAnswerEvents(
                runtime: runtime, conversationID: id, speaking: speaking, stages: VoiceStageClock(start: receiving),
                before: (received, turn.decoding, turn.transcribing)
            )
            return EventStream.response { writer in
                await events.run(turn) { name, value in writer.send(name, value) }
            }
        }
        LiveVoiceRoute(state: state).add(to: group)
    }

    /// The uploaded recording: the part named `file` or `audio`, or the only file.
    static func audio(in form: MultipartForm) throws -> AudioFile {
        guard let part = form.file("file") ?? form.file("audio") ?? form.files.first, !part.data.isEmpty else {
            throw APIError.badRequest("Send the recording as a multipart file named 'file'.")
        }
        let format = AudioFormat(sniffing: part.data)
            ?? part.contentType.flatMap(AudioFormat.init(mimeType:))
            ?? part.filename.flatMap { AudioFormat(fileExtension: URL(fileURLWithPath: $0).pathExtension) }
        guard let format else {
            throw APIError(.unsupportedMediaType, code: "unsupported_audio", "The recording is not audio Sibyl reads (WebM/Opus, Ogg/Opus, MP4/AAC, WAV, MP3, FLAC, M4A).")
        }
        return AudioFile(data: part.data, format: format)
    }

    static func speechOptions(voice: String?, format: String?, speed: Double?) throws -> SpeechOptions {
        let audioFormat = try format.map { name -> AudioFormat in
            guard let parsed = AudioFormat(rawValue: name.lowercased()), [.wav, .mp3, .opus, .aac, .flac, .pcm].contains(parsed) else {
                throw APIError.badRequest("'format' is wav, mp3, opus, aac, flac or pcm.")
            }
            return parsed
        } ?? .wav
        if let speed, !(0.25...4).contains(speed) { throw APIError.badRequest("'speed' is between 0.25 and 4.") }
        return SpeechOptions(voice: voice, format: audioFormat, speed: speed)
    }
}
