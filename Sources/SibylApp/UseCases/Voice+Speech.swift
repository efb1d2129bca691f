public import Assistant
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
        let synthesizer = try await runtime.providers.speechSynthesizer()
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

/// A voice answers can be spoken with (`tts.voice`).
public struct VoiceChoice: Sendable, Hashable, Codable {
    /// What `tts.voice` is set to.
    public var id: String
    /// piper, espeak or remote.
    public var engine: String
    public var language: String?
    /// A name to show.
    public var name: String

    public init(id: String, engine: String, language: String?, name: String) {
        self.id = id
        self.engine = engine
        self.language = language
        self.name = name
    }
}

extension SibylRuntime.Voice {
    /// The voices answers can be spoken with now: locally Piper's joe (when installed) and every
    /// espeak-ng voice; with a remote provider, OpenAI's voice names.
    public func voices() async throws -> [VoiceChoice] {
        guard runtime.providers.speaksLocally else {
            return ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"].map {
                VoiceChoice(id: $0, engine: "remote", language: nil, name: $0.capitalized)
            }
        }
        let local = runtime.local.textToSpeech
        var choices: [VoiceChoice] = []
        if let piper = local.piper, piper.isInstalled {
            choices.append(VoiceChoice(id: "joe", engine: "piper", language: "en-us", name: "Joe (Piper, natural English)"))
        }
        guard local.espeak.isAvailable else { return choices }
        for voice in try await local.espeak.voices() {
            choices.append(VoiceChoice(id: voice.language, engine: "espeak", language: voice.language, name: "\(voice.name.replacingOccurrences(of: "_", with: " ")) (espeak-ng, \(voice.language))"))
        }
        return choices
    }
}

/// One sentence of an answer, spoken.
public struct SpokenSentence: Sendable {
    public var text: String
    public var audio: AudioFile
}

extension SibylRuntime.Voice {
    /// Words the first phrase of a spoken answer needs before a comma may end it.
    public static let firstPhraseWords = 4

    /// Speaks an answer as it is written: each sentence is synthesised as soon as the model has
    /// finished it, while it writes the next, and the sentences arrive in order. The first piece
    /// may be a phrase ("Paris is the capital of France,"), so that the first words are heard sooner. The stream ends
    /// with the answer (a cancelled or failed answer is spoken up to where it stopped); ending the
    /// iteration stops the synthesis.
    public func speakAsWritten(_ turn: LiveTurn, options: SpeechOptions = SpeechOptions()) -> AsyncThrowingStream<SpokenSentence, any Error> {
        let (stream, continuation) = AsyncThrowingStream<SpokenSentence, any Error>.makeStream()
        let task = Task {
            // The first words are spoken as soon as a phrase of them is written; then sentence by sentence.
            var splitter = SentenceSplitter(firstClauseWords: Self.firstPhraseWords)
            do {
                for await event in turn.events() {
                    if case .delta(let text) = event {
                        for sentence in splitter.append(text) {
                            try await speakSentence(sentence, options: options, into: continuation)
                        }
                    }
                    if event.endsAnswer { break }
                }
                if let rest = splitter.finish() {
                    try await speakSentence(rest, options: options, into: continuation)
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Speaks the text as it will be shown (markdown and link targets left out); nothing for a
    /// sentence with no words (a code fence, a bullet alone).
    private func speakSentence(_ sentence: String, options: SpeechOptions, into continuation: AsyncThrowingStream<SpokenSentence, any Error>.Continuation) async throws {
        try Task.checkCancellation()
        let text = GlassesText.plain(sentence)
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else { return }
        continuation.yield(SpokenSentence(text: text, audio: try await speak(text, options: options)))
    }
}
