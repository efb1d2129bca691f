import Foundation
import SibylCore
import SibylTestSupport
import TestFixtures
import Testing
@testable import LocalEngines

/// How Piper's input is made: clauses with their marks, and phoneme ids as the voice was trained.
@Suite("Piper's phonemes and ids")
struct PiperInputTests {
    @Test("A sentence is cut into clauses at marks followed by a space; numbers and initials stay whole")
    func clauses() {
        typealias Clause = EspeakPhonemizer.Clause
        #expect(EspeakPhonemizer.clauses(of: "Hello there, how are you today?") == [Clause(text: "Hello there", mark: ","), Clause(text: "how are you today", mark: "?")])
        #expect(EspeakPhonemizer.clauses(of: "Pi is 3.14 in the U.S.A. today") == [Clause(text: "Pi is 3.14 in the U.S.A", mark: "."), Clause(text: "today", mark: nil)])
        #expect(EspeakPhonemizer.clauses(of: "Wait…  then\nok!") == [Clause(text: "Wait… then ok", mark: "!")])
        #expect(EspeakPhonemizer.clauses(of: "  ,  ").isEmpty, "a clause with no words is dropped")
    }

    @Test("espeak-ng's paragraphs get their clause's mark back; a different split keeps the last mark")
    func joining() {
        let clauses = [EspeakPhonemizer.Clause(text: "Hello there", mark: ","), EspeakPhonemizer.Clause(text: "how are you", mark: "?")]
        #expect(EspeakPhonemizer.join("həlˈoʊ ðˈɛɹ\n\nhˌaʊ ɑːɹ juː\n", clauses: clauses) == "həlˈoʊ ðˈɛɹ, hˌaʊ ɑːɹ juː?")
        // espeak-ng ended a clause inside one paragraph (after "Dr."): its lines are one clause.
        #expect(EspeakPhonemizer.join("dˈɑːktɚ\nsmˈɪθ\n\nhˌaʊ\n", clauses: clauses) == "dˈɑːktɚ smˈɪθ, hˌaʊ?")
        #expect(EspeakPhonemizer.join("wˈʌn\n", clauses: clauses) == "wˈʌn?")
    }

    @Test("Ids: ^, each known phoneme (decomposed) followed by the pad, then $")
    func ids() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("piper-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data("""
        {"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-us"},
         "inference": {"noise_scale": 0.667, "length_scale": 1, "noise_w": 0.8},
         "phoneme_id_map": {"_": [0], "^": [1], "$": [2], " ": [3], "c": [16], "h": [20], "ˈ": [120], "\\u0327": [140], "ə": [59]}}
        """.utf8).write(to: file)
        let configuration = try PiperVoiceConfiguration(contentsOf: file)
        #expect(configuration.sampleRate == 22_050)
        #expect(configuration.espeakVoice == "en-us")
        // "ç" is c + cedilla once decomposed; "x" is not in the map and is left out.
        #expect(configuration.ids(for: "hˈə ç x") == [1, 0, 20, 0, 120, 0, 59, 0, 3, 0, 16, 0, 140, 0, 3, 0, 2])
        try Data(#"{"audio": {"sample_rate": 22050}, "espeak": {"voice": "en-us"}, "inference": {"noise_scale": 1, "length_scale": 1, "noise_w": 1}, "phoneme_id_map": {"a": [1]}}"#.utf8).write(to: file)
        #expect(throws: SpeechError.self) { try PiperVoiceConfiguration(contentsOf: file) }
    }
}

/// Piper's joe voice on the installed ONNX Runtime, checked by ear: Moonshine must hear the words.
@Suite("Piper (en_US-joe-medium) on ONNX Runtime", .timeLimit(.minutes(10)), .serialized, .enabled(if: EngineAvailability.runs("tts") && EngineAvailability.runs("stt"), "the tts and stt components are not installed (sibyl models install tts stt)"))
struct PiperTests {
    static let piper = PiperSynthesizer(layout: EngineAvailability.layout)

    static func heard(_ audio: AudioFile) async throws -> String {
        try await TestEngines.moonshine.transcribe(audio, options: TranscriptionOptions(language: "en")).text
    }

    @Test("The voice says what it is given: Moonshine hears it back word for word")
    func speaksIntelligibly() async throws {
        let text = "Hello there, how are you today? The weather in Paris is mild: about fourteen degrees."
        let audio = try await Self.piper.synthesize(text, options: SpeechOptions(format: .wav))
        let wav = try WAVAudio(parsing: audio.data)
        #expect(wav.sampleRate == 22_050)
        #expect(wav.channels == 1 && wav.bitsPerSample == 16)
        let heard = try await Self.heard(audio)
        print("[piper] heard: \(heard)")
        let wer = WordErrorRate(reference: text, hypothesis: heard)
        #expect(wer.errors <= 1, "\(wer): \(heard)")
    }

    @Test("Speed changes the length; PCM is the WAV's samples; bad requests say why")
    func speedFormatsAndErrors() async throws {
        let text = "The quick brown fox jumps over the lazy dog."
        let normal = try WAVAudio(parsing: try await Self.piper.synthesize(text, options: SpeechOptions()).data)
        let fast = try WAVAudio(parsing: try await Self.piper.synthesize(text, options: SpeechOptions(speed: 2)).data)
        #expect(fast.duration < normal.duration * 0.75, "\(fast.duration) s at twice the speed, \(normal.duration) s at normal speed")
        let pcm = try await Self.piper.synthesize(text, options: SpeechOptions(format: .pcm, speed: 2))
        #expect(pcm.format == .pcm)
        #expect(abs(pcm.data.count - fast.samples.count) < 22_050 / 2, "the voice is not deterministic to the sample, but close")
        await #expect(throws: SpeechError.unsupportedFormat("mp3")) { try await Self.piper.synthesize("hi", options: SpeechOptions(format: .mp3)) }
        await #expect(throws: SpeechError.emptyText) { try await Self.piper.synthesize(" \n ", options: SpeechOptions()) }
    }

    @Test("The default voice is Piper's; a named espeak-ng voice is espeak-ng's; Piper named but missing is an error")
    func choosingTheEngine() async throws {
        let local = LocalSpeechSynthesizer(piper: Self.piper)
        #expect(try local.engine(for: nil) == .piper)
        #expect(try local.engine(for: "alloy") == .piper)
        #expect(try local.engine(for: "Joe") == .piper)
        #expect(try local.engine(for: "fr") == .espeak)
        let french = try await local.synthesize("Bonjour tout le monde.", options: SpeechOptions(voice: "fr"))
        #expect(try WAVAudio(parsing: french.data).duration > 0.5)
        let missing = LocalSpeechSynthesizer(piper: PiperSynthesizer(layout: EngineLayout(root: FileManager.default.temporaryDirectory.appendingPathComponent("no-engines-\(UUID().uuidString)"))))
        #expect(try missing.engine(for: nil) == .espeak, "without Piper, the default voice is espeak-ng's")
        #expect(throws: LocalEngineError.self) { try missing.engine(for: "joe") }
    }
}
