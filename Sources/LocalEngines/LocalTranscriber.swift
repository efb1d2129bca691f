public import SibylCore

/// Sibyl's offline speech-to-text: each recording goes to the engine that does it best, both kept
/// loaded. English questions (the language is known and is English, up to 30 s, plain text) go to
/// Moonshine, made for short live speech; everything else (other languages, a language to detect,
/// translation, subtitles, long recordings) to Whisper in whisper-server.
public struct LocalTranscriber: DraftingTranscriber {
    public let moonshine: MoonshineTranscriber?
    public let whisper: WhisperServerTranscriber

    /// `moonshine` nil: Whisper does everything.
    public init(moonshine: MoonshineTranscriber?, whisper: WhisperServerTranscriber) {
        self.moonshine = moonshine
        self.whisper = whisper
    }

    /// The engine a recording of `seconds` with these options goes to.
    public func engine(for options: TranscriptionOptions, seconds: Double?) -> any Transcriber {
        guard let moonshine, Self.isEnglish(options.language), !options.translate, options.format == .text,
              (seconds ?? 0) <= MoonshineTranscriber.longestRecording
        else { return whisper }
        return moonshine
    }

    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        try await transcribe(audio, options: options, draft: nil)
    }

    /// A draft (a partial transcript's tokens) helps Moonshine; Whisper reads without it.
    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions, draft: Transcription?) async throws -> Transcription {
        let seconds = (try? WAVAudio(parsing: audio.data))?.duration
        let engine = engine(for: options, seconds: seconds)
        if let moonshine = engine as? MoonshineTranscriber { return try await moonshine.transcribe(audio, options: options, draft: draft) }
        return try await engine.transcribe(audio, options: options)
    }

    /// Loads both models now, so that no question waits for a load.
    public func start() async throws {
        try await moonshine?.start()
        // A server shutting down while Moonshine loaded has no use for whisper-server any more.
        try Task.checkCancellation()
        try await whisper.start()
    }

    static func isEnglish(_ language: String?) -> Bool {
        language?.trimmingCharacters(in: .whitespaces).lowercased() == "en"
    }
}
