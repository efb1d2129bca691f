public import SibylCore

/// Sibyl's offline text-to-speech: Piper's natural English voice (joe) when it is installed and
/// no other voice is asked for, espeak-ng for a named espeak-ng voice (other languages: "fr",
/// "ko", "id"…) and as the fallback.
public struct LocalSpeechSynthesizer: SpeechSynthesizer {
    public let piper: PiperSynthesizer?
    public let espeak: EspeakSynthesizer

    /// `piper` nil: espeak-ng speaks everything.
    public init(piper: PiperSynthesizer?, espeak: EspeakSynthesizer = EspeakSynthesizer()) {
        self.piper = piper
        self.espeak = espeak
    }

    /// The engines a voice name is spoken with.
    public enum Engine: String, Sendable {
        case piper, espeak
    }

    /// Whether `voice` names Piper's voice, or means "the default voice" (no name, or an OpenAI
    /// voice name, which has no local voice of its own).
    public static func meansPiper(_ voice: String?) -> Bool {
        guard let voice = voice?.trimmingCharacters(in: .whitespaces).lowercased(), !voice.isEmpty else { return true }
        return PiperSynthesizer.voiceNames.contains(voice) || EspeakSynthesizer.openAIVoices.contains(voice)
    }

    /// The engine that speaks `voice`: Piper for its names and the default voice when installed.
    /// Asking for Piper by name when it is not installed is an error, not a silent espeak-ng.
    public func engine(for voice: String?) throws -> Engine {
        guard Self.meansPiper(voice) else { return .espeak }
        if let piper, piper.isInstalled { return .piper }
        if let voice, PiperSynthesizer.voiceNames.contains(voice.trimmingCharacters(in: .whitespaces).lowercased()) {
            throw LocalEngineError.notInstalled(component: "tts", missing: "Piper's en_US-joe-medium voice")
        }
        return .espeak
    }

    public func synthesize(_ text: String, options: SpeechOptions) async throws -> AudioFile {
        switch try engine(for: options.voice) {
        case .piper: try await piper!.synthesize(text, options: options)
        case .espeak: try await espeak.synthesize(text, options: options)
        }
    }

    /// Loads Piper's voice now (when it is installed), so the first answer spoken does not wait.
    public func start() async throws {
        guard let piper, piper.isInstalled else { return }
        try await piper.start()
    }
}
