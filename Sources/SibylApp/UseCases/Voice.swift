public import Assistant
import Foundation
import LocalEngines
import SibylConfig
import Synchronization
public import SibylCore

extension SibylRuntime.Voice {
    /// A voice-activity detector for one stream of audio, with the `voice.*` settings: Silero VAD
    /// when `voice.detector` is silero and it is installed, else the energy detector.
    public func detector(sampleRate: Int = AudioResampling.speechSampleRate, configuration: VoiceActivityDetector.Configuration? = nil) -> VoiceActivityDetector {
        let classifier = speechClassifier()
        return VoiceActivityDetector(sampleRate: sampleRate, configuration: configuration ?? detection(hearingSpeech: classifier != nil), classifier: classifier)
    }

    /// Silero VAD for one stream of audio; nil when `voice.detector` is energy, or Silero is not
    /// installed or does not load (then loudness decides, as before).
    public func speechClassifier() -> (any SpeechClassifier)? {
        guard runtime.settings[.voiceDetector] == .silero, runtime.local.voiceDetector.isInstalled else { return nil }
        do {
            return try runtime.local.voiceDetector.stream()
        } catch {
            runtime.logger.warning("Silero VAD did not load; loudness decides where speech ends: \(error)")
            return nil
        }
    }

    /// The voice-activity detector's settings (`voice.*`); `hearingSpeech`: a classifier judges the
    /// frames, so the hang-over's default is shorter.
    public func detection(hearingSpeech: Bool = false) -> VoiceActivityDetector.Configuration {
        let settings = runtime.settings
        var configuration = VoiceActivityDetector.Configuration()
        configuration.thresholdDB = settings[.voiceThresholdDB]
        configuration.marginDB = settings[.voiceMarginDB]
        configuration.onset = .milliseconds(settings[.voiceOnsetMilliseconds])
        let detector: VoiceDetectorKind = hearingSpeech ? .silero : .energy
        configuration.hangover = .milliseconds(settings[.voiceHangoverMilliseconds] ?? detector.defaultHangoverMilliseconds)
        configuration.waitForSpeech = .seconds(settings[.voiceWaitSeconds])
        configuration.maximumSpeech = .seconds(settings[.voiceMaxSeconds])
        return configuration
    }

    /// Answers a spoken question: the recording (any format a browser or phone records) is
    /// trimmed to where someone speaks, transcribed, and asked as `request` asks (its question
    /// text is replaced by what was heard). Speak the answer with `speak(message:in:)`.
    ///
    /// The spoken language is the one `transcription` names, else the `voice.language` setting
    /// ("auto": detect it on each question), else `languageHint` (the page's or the terminal's
    /// language): a known language skips detection and lets English go to the fast recogniser.
    public func ask(
        _ audio: AudioFile, request: AskRequest, transcription: TranscriptionOptions = TranscriptionOptions(), languageHint: String? = nil
    ) async throws -> VoiceTurn {
        guard !audio.data.isEmpty else { throw AssistantError.emptyAudio }
        let clock = ContinuousClock()
        let started = clock.now
        let speech = try await speechOnly(audio)
        let decoded = clock.now
        let transcription = spoken(transcription, languageHint: languageHint)
        let heard = try await transcribe(speech, options: transcription)
        let transcribed = clock.now
        var turn = try await ask(heard: heard, request: request)
        turn.decoding = decoded - started
        turn.transcribing = transcribed - decoded
        return turn
    }

    /// Loads the local speech engines (both recognisers, the voice detector and Piper's voice) now,
    /// so that the first question and the first answer spoken do not wait for them; nothing for
    /// what is remote or not installed. Problems are logged: the first question meets them again.
    public func warmUp() async {
        let clock = ContinuousClock()
        if runtime.providers.transcribesLocally, let transcriber = try? runtime.local.speechToText() {
            let started = clock.now
            do {
                _ = speechClassifier()
                try await transcriber.start()
                runtime.logger.info("speech-to-text is loaded and warm (\(clock.now - started))")
            } catch {
                runtime.logger.warning("the speech-to-text engines did not load: \(error)")
            }
        }
        guard !Task.isCancelled, runtime.providers.speaksLocally else { return }
        let voice = runtime.local.textToSpeech
        guard (try? voice.engine(for: runtime.settings[.ttsVoice])) == .piper else { return }
        let started = clock.now
        do {
            try await voice.start()
            runtime.logger.info("Piper's voice is loaded and warm (\(clock.now - started))")
        } catch {
            runtime.logger.warning("Piper's voice did not load: \(error)")
        }
    }

    /// Transcription options with the spoken language filled in (see `ask(_:request:transcription:languageHint:)`).
    func spoken(_ options: TranscriptionOptions, languageHint: String?) -> TranscriptionOptions {
        var options = options
        if options.language == nil, !options.translate {
            options.language = Self.spokenLanguage(setting: runtime.settings[.voiceLanguage], hint: languageHint)
        }
        return options
    }

    /// The language to transcribe in: the setting's, or the hint when the setting is unset; nil
    /// (detect) when the setting says "auto" or nothing is known. A hint with a region
    /// ("en-US", a browser's) gives its language ("en").
    static func spokenLanguage(setting: String?, hint: String?) -> String? {
        let hinted = hint.flatMap { $0.split(separator: "-").first.map(String.init) }
        let chosen = (setting ?? hinted)?.trimmingCharacters(in: .whitespaces).lowercased()
        guard let chosen, !chosen.isEmpty, chosen != "auto" else { return nil }
        return chosen
    }

    /// A listener for one spoken question (16 kHz samples as they are recorded): it hears where the
    /// question ends, by the voice detector and by whether the words end a sentence, and
    /// transcribes it once. Ask what it heard with `ask(heard:request:)`.
    public func listener(
        transcription: TranscriptionOptions = TranscriptionOptions(), languageHint: String? = nil, detection: VoiceActivityDetector.Configuration? = nil
    ) throws -> SpokenQuestionListener {
        let transcription = spoken(transcription, languageHint: languageHint)
        let detector = detector(configuration: detection)
        // Waiting on unfinished sentences means transcribing at each pause: free locally, a paid
        // request each time with a remote provider, which therefore ends at the hang-over.
        let local = runtime.providers.transcribesLocally
        let patience = local ? SpokenQuestionListener.defaultPatience : detector.configuration.hangover
        // Partial transcripts as the person speaks: free locally (and the final one is read sooner).
        let partials = local ? SpokenQuestionListener.defaultPartialInterval : nil
        return SpokenQuestionListener(detector: detector, transcriber: try runtime.providers.transcriber(), options: transcription, patience: patience, partialInterval: partials)
    }

    /// Asks what a listener heard.
    public func ask(heard: Transcription, request: AskRequest) async throws -> VoiceTurn {
        let text = heard.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard GlassesAssistant.hasWords(text) else {
            await runtime.log(.info, .voice, "speech-to-text heard no words")
            throw AssistantError.noSpeech
        }
        var request = request
        request.question = text
        return VoiceTurn(transcript: heard, ask: try await runtime.conversations.ask(request))
    }

    /// Writes a spoken turn's stage times to the operations log (`sibyl logs --operation voice`).
    public func record(_ timings: Wire.VoiceTimings) async {
        var stages = ["transcript \(timings.receive + timings.decode + timings.transcribe) ms"]
        if let firstToken = timings.firstToken { stages.append("first token \(firstToken) ms") }
        if let firstAudio = timings.firstAudio { stages.append("first audio \(firstAudio) ms") }
        await runtime.log(.info, .voice, "spoken question answered: " + stages.joined(separator: ", "), details: timings)
    }

    /// The recording cut to the speech in it, as 16 kHz WAV; fails plainly when nobody speaks.
    /// Without ffmpeg, audio other than WAV goes to a remote transcriber as it is.
    func speechOnly(_ audio: AudioFile) async throws -> AudioFile {
        let converter = AudioConverter()
        let isWAV = (AudioFormat(sniffing: audio.data) ?? audio.format) == .wav
        guard isWAV || converter.isAvailable || runtime.providers.transcribesLocally else { return audio }
        let wav = try await converter.speechWAV(from: audio)
        let samples = try AudioResampling.speechPCM16(fromWAV: wav.data)
        let classifier = speechClassifier()
        guard let range = VoiceActivityDetector.speechRange(in: samples, configuration: detection(hearingSpeech: classifier != nil), classifier: classifier) else {
            throw AssistantError.noSpeech
        }
        // A little of the quiet around the words helps speech-to-text with the first and last ones.
        let margin = AudioResampling.speechSampleRate / 4
        let kept = Array(samples[max(0, range.lowerBound - margin)..<min(samples.count, range.upperBound + margin)])
        return AudioFile(data: AudioResampling.wav(pcm16: kept, sampleRate: AudioResampling.speechSampleRate).encoded(), format: .wav)
    }
}

/// When a spoken answer's first token and first sentence of audio were ready, counted from a
/// start (the end of speech in the terminal, the recording's arrival on the server); the first of
/// each is kept.
public final class VoiceStageClock: Sendable {
    public let start: ContinuousClock.Instant
    private let times = Mutex<(firstToken: Duration?, firstAudio: Duration?)>((nil, nil))

    public init(start: ContinuousClock.Instant = .now) {
        self.start = start
    }

    /// A token of the answer arrived now.
    public func token() {
        times.withLock { if $0.firstToken == nil { $0.firstToken = .now - start } }
    }

    /// A sentence of the answer was spoken (its audio is ready) now.
    public func audio() {
        times.withLock { if $0.firstAudio == nil { $0.firstAudio = .now - start } }
    }

    public var firstToken: Duration? { times.withLock { $0.firstToken } }
    public var firstAudio: Duration? { times.withLock { $0.firstAudio } }
}
