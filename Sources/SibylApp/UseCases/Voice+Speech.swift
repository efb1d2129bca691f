import Assistant
public import Foundation
import LocalEngines
import SibylConfig
public import SibylCore
import Storage

extension SibylRuntime.Voice {
    /// Speech to text (or translated into English). Audio in any format a browser or phone records
    /// is accepted: for the local engine it is decoded with ffmpeg first.
    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions = TranscriptionOptions()) async throws -> Transcription {
        guard !audio.data.isEmpty else { throw AssistantError.emptyAudio }
        let input = runtime.providers.transcribesLocally ? try await AudioConverter().speechWAV(from: audio) : audio
        return try await runtime.providers.transcriber().transcribe(input, options: options)
    }

    /// Text to speech. The local voice speaks WAV; other formats are encoded from it with ffmpeg.
    public func speak(_ text: String, options: SpeechOptions = SpeechOptions()) async throws -> AudioFile {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SpeechError.emptyText }
        var options = options
        if options.voice == nil { options.voice = runtime.settings[.ttsVoice] }
        let synthesizer = try runtime.providers.speechSynthesizer()
        guard runtime.providers.speaksLocally, options.format != .wav, options.format != .pcm else {
            return try await synthesizer.synthesize(trimmed, options: options)
        }
        let target = options.format
        options.format = .wav
        let wav = try await synthesizer.synthesize(trimmed, options: options)
        return try await AudioConverter().encode(wav, as: target)
    }

    /// Speaks a saved answer.
    public func speak(message messageID: UUID, in conversationID: UUID, options: SpeechOptions = SpeechOptions()) async throws -> AudioFile {
        let message = try await runtime.conversations.message(messageID, in: conversationID)
        let text = GlassesText.plain(message.text)
        guard !text.isEmpty else { throw SpeechError.emptyText }
        return try await speak(text, options: options)
    }
}
