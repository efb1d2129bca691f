import Foundation

/// Encoded audio bytes with their container format.
public struct AudioFile: Sendable, Hashable {
    public var data: Data
    public var format: AudioFormat

    public init(data: Data, format: AudioFormat) {
        self.data = data
        self.format = format
    }
}

/// Audio containers Sibyl reads or writes.
public enum AudioFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case wav, mp3, m4a, flac, ogg, opus, aac, pcm, webm

    /// Guesses the format from a file name's extension.
    public init?(fileExtension: String) {
        let ext = fileExtension.lowercased()
        switch ext {
        case "mp4", "mpeg", "mpga": self = .mp3
        case "oga": self = .ogg
        default: self.init(rawValue: ext)
        }
    }

    public var mimeType: String {
        switch self {
        case .wav: "audio/wav"
        case .mp3: "audio/mpeg"
        case .m4a: "audio/mp4"
        case .flac: "audio/flac"
        case .ogg: "audio/ogg"
        case .opus: "audio/opus"
        case .aac: "audio/aac"
        case .pcm: "audio/pcm"
        case .webm: "audio/webm"
        }
    }
}

/// The shape of a transcription: plain text, or subtitles with timings.
public enum TranscriptFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case text, srt, vtt
}

/// Settings for speech-to-text.
public struct TranscriptionOptions: Sendable, Hashable {
    /// Translate into English instead of transcribing in the spoken language.
    public var translate: Bool
    /// ISO-639-1 code of the spoken language, when known (transcription only).
    public var language: String?
    /// Text that guides spelling and style, such as names the speaker uses.
    public var prompt: String?
    public var model: String?
    public var temperature: Double?
    /// Plain text (the default), or SRT / WebVTT subtitles, which arrive in `Transcription.text`.
    public var format: TranscriptFormat

    public init(translate: Bool = false, language: String? = nil, prompt: String? = nil, model: String? = nil, temperature: Double? = nil, format: TranscriptFormat = .text) {
        self.translate = translate
        self.language = language
        self.prompt = prompt
        self.model = model
        self.temperature = temperature
        self.format = format
    }
}

/// The text heard in a recording.
public struct Transcription: Sendable, Hashable {
    public var text: String
    /// The spoken language (detected or given), when known; for translations too, where the text is English.
    public var language: String?
    /// The recording's length in seconds, when the provider reports it.
    public var duration: Double?
    /// The engine's own tokens, when it gives them (Moonshine): a draft for reading a longer
    /// recording of the same speech sooner (see `DraftingTranscriber`).
    public var tokens: [Int]?

    public init(text: String, language: String? = nil, duration: Double? = nil, tokens: [Int]? = nil) {
        self.text = text
        self.language = language
        self.duration = duration
        self.tokens = tokens
    }
}

/// Settings for text-to-speech.
public struct SpeechOptions: Sendable, Hashable {
    public var model: String?
    public var voice: String?
    public var format: AudioFormat
    /// Playback speed, 0.25…4.0 (1 is normal).
    public var speed: Double?

    public init(model: String? = nil, voice: String? = nil, format: AudioFormat = .wav, speed: Double? = nil) {
        self.model = model
        self.voice = voice
        self.format = format
        self.speed = speed
    }
}
