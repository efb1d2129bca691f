import Foundation
import SibylCore
import SibylTestSupport
import TestFixtures
import Testing
@testable import LocalEngines

extension TestEngines {
    static let moonshine = MoonshineTranscriber(layout: layout, threads: min(4, WhisperTranscriber.defaultThreads))
    static var moonshineEnabled: Bool { moonshine.isInstalled || required }
    static let moonshineMissing: Comment = "Moonshine or ONNX Runtime is not installed (sibyl models install stt; SIBYL_REQUIRE_ENGINES=1 turns this skip into a failure)"
}

/// Moonshine base on the installed ONNX Runtime, in this process.
@Suite("Moonshine (English) on ONNX Runtime", .timeLimit(.minutes(20)), .serialized, .enabled(if: TestEngines.moonshineEnabled, TestEngines.moonshineMissing))
struct MoonshineTests {
    static var transcriber: MoonshineTranscriber { TestEngines.moonshine }

    static func transcribe(_ wav: Data, language: String? = "en") async throws -> Transcription {
        try await transcriber.transcribe(AudioFile(data: wav, format: .wav), options: TranscriptionOptions(language: language))
    }

    @Test("WER ≤ 10 % on the five LibriVox clips, at least as good as Whisper base's", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func librivoxWordErrorRate() async throws {
        var total = WordErrorRate(errors: 0, referenceWords: 0)
        for clip in try WhisperAccuracyTests.librivoxClips() {
            let heard = try await Self.transcribe(Data(contentsOf: TestEngines.librivox.appendingPathComponent("\(clip.id).wav")))
            let wer = WordErrorRate(reference: clip.reference, hypothesis: heard.text)
            print("[moonshine] \(clip.id): \(wer) — \(heard.text)")
            #expect(heard.language == "en")
            total = total + wer
        }
        print("[moonshine] LibriVox WER \(total)")
        // Whisper base makes one error on these clips (the reader's own slip, "a more a amiable").
        #expect(total.errors <= 1, "WER \(total)")
    }

    @Test("Monocle audio (signed 8-bit, 8 kHz) of a real voice is transcribed", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func monocleAudio() async throws {
        // Moonshine misses espeak-ng's robotic voice once it is narrowed to 8 kHz and 8 bits (Whisper
        // does not); a person's voice, as the glasses' microphone hears it, it gets.
        let spoken = try PCMBuffer(wav: Data(contentsOf: TestEngines.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0930.wav")))
        let narrowband = AudioResampling.resample(spoken.samples, from: spoken.sampleRate, to: 8_000)
        let heard = try await Self.transcribe(AudioResampling.speechWAV(fromSigned8: AudioResampling.signed8(narrowband)).encoded())
        #expect(WordErrorRate(reference: "he might even have been made amiable himself", hypothesis: heard.text).errors == 0, "\(heard.text)")
    }

    @Test("Silence and a click give no words; a language other than English is refused")
    func silenceAndLanguages() async throws {
        let click = AudioResampling.wav(pcm16: [Int16](repeating: 0, count: 800), sampleRate: 16_000).encoded()
        #expect(try await Self.transcribe(click).text.isEmpty)
        let silence = AudioResampling.wav(pcm16: [Int16](repeating: 0, count: 32_000), sampleRate: 16_000).encoded()
        let heard = try await Self.transcribe(silence)
        print("[moonshine] 2 s of silence: \"\(heard.text)\"")
        #expect(heard.text.filter(\.isLetter).isEmpty, "\(heard.text)")
        await #expect(throws: MoonshineError.englishOnly("ko")) { try await Self.transcribe(silence, language: "ko") }
    }

    @Test("Cancelling stops the decoder between tokens", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func cancellation() async throws {
        let clips = try WhisperAccuracyTests.librivoxClips().map { try WAVAudio(parsing: Data(contentsOf: TestEngines.librivox.appendingPathComponent("\($0.id).wav"))) }
        let long = try WAVAudio.concatenate(clips).encoded()
        let task = Task { try await Self.transcribe(long) }
        task.cancel()
        let outcome = try await waitFor("the transcription to end after the cancel", within: .seconds(300)) { await task.result }
        #expect(throws: CancellationError.self) { try outcome.get() }
        // The model is still there for the next question.
        let heard = try await Self.transcribe(Data(contentsOf: TestEngines.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0880.wav")))
        #expect(heard.text.lowercased().contains("young man"), "\(heard.text)")
    }

    @Test("A draft (a partial transcript's tokens) gives the same text, right, half right or wrong", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func drafts() async throws {
        let wav = try Data(contentsOf: TestEngines.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0920.wav"))
        let audio = AudioFile(data: wav, format: .wav)
        let english = TranscriptionOptions(language: "en")
        let plain = try await Self.transcriber.transcribe(audio, options: english)
        let tokens = try #require(plain.tokens)
        #expect(tokens.count > 10)
        // The partial transcript of the first half of the recording, as the listener would take it.
        let recording = try WAVAudio(parsing: wav)
        let half = WAVAudio(sampleRate: recording.sampleRate, channels: recording.channels, bitsPerSample: recording.bitsPerSample, samples: recording.samples.prefix(recording.samples.count / 2))
        let partial = try await Self.transcriber.transcribe(AudioFile(data: half.encoded(), format: .wav), options: english)
        var wrong = tokens
        wrong[tokens.count / 3] = 5_000
        let drafts: [(String, [Int])] = [
            ("the first half's partial transcript", partial.tokens ?? []), ("the whole answer", tokens), ("the answer with one word changed", wrong),
            ("the answer and more", tokens + tokens), ("nonsense", [9, 99, 999, 9_999]),
        ]
        for (name, draft) in drafts {
            let drafted = try await Self.transcriber.transcribe(audio, options: english, draft: Transcription(text: "", tokens: draft))
            #expect(drafted.text == plain.text, "with \(name) as the draft: \(drafted.text)")
            #expect(drafted.tokens == tokens, "with \(name) as the draft")
        }
    }

    @Test("The installed tokenizer has Moonshine's 32,000 tokens")
    func installedTokenizer() throws {
        let tokenizer = try MoonshineTokenizer(contentsOf: TestEngines.layout.moonshineDirectory.appendingPathComponent("tokenizer.bin"))
        #expect(tokenizer.tokens.count == 32_000)
        #expect(tokenizer.tokens[0] == Data("<unk>".utf8))
        #expect(tokenizer.tokens[1] == Data("<s>".utf8))
        #expect(tokenizer.tokens[2] == Data("</s>".utf8))
    }

    @Test("The runtime reports its version and refuses a file that is not a model")
    func runtimeAndBadModel() throws {
        let runtime = try OnnxRuntime.open(TestEngines.layout.onnxRuntime)
        #expect(runtime.version == "1.22.1")
        let directory = try TemporaryDirectory()
        let bogus = directory.file("model.onnx")
        try Data("not a model".utf8).write(to: bogus)
        #expect(throws: OnnxError.self) { try OnnxModel(runtime: runtime, file: bogus, threads: 1) }
    }
}

/// The parts that need no engine.
@Suite("Moonshine's tokenizer file, ONNX Runtime's loading, and which engine hears what", .timeLimit(.minutes(5)))
struct MoonshineFormatTests {
    @Test("Lengths of one and two bytes; special tokens and word marks in the text")
    func tokenizerFormat() throws {
        var file = Data()
        for token in ["<unk>", "<s>", "</s>", "\u{2581}Hello", ",", "\u{2581}world"] {
            file.append(UInt8(token.utf8.count))
            file.append(contentsOf: Array(token.utf8))
        }
        let long = String(repeating: "a", count: 200)
        file.append(contentsOf: [UInt8(0x80 | (200 & 0x7F)), UInt8(200 >> 7)])
        file.append(contentsOf: Array(long.utf8))
        let tokenizer = try MoonshineTokenizer(data: file)
        #expect(tokenizer.tokens.count == 7)
        #expect(tokenizer.tokens[6].count == 200)
        #expect(tokenizer.text([1, 3, 4, 5, 2]) == "Hello, world")
        #expect(tokenizer.text([3, 99_999]) == "Hello")
    }

    @Test("A truncated tokenizer file is a clear error")
    func truncatedTokenizer() {
        #expect(throws: MoonshineError.self) { try MoonshineTokenizer(data: Data([5, 0x3C, 0x75])) }
        #expect(throws: MoonshineError.self) { try MoonshineTokenizer(data: Data([0x85])) }
    }

    @Test("A library that is not ONNX Runtime is refused with the reason")
    func notALibrary() throws {
        let error = #expect(throws: OnnxError.self) { try OnnxRuntime.open(URL(fileURLWithPath: "/nonexistent/libonnxruntime.so")) }
        #expect(error?.localizedDescription.contains("/nonexistent/libonnxruntime.so") == true)
    }

    @Test("English questions go to Moonshine; other languages, detection, translation, subtitles and long recordings to Whisper")
    func routing() {
        let layout = EngineLayout(root: URL(fileURLWithPath: "/nonexistent"))
        let whisper = WhisperServerTranscriber(configuration: .init(layout: layout, logFile: URL(fileURLWithPath: "/dev/null")))
        let local = LocalTranscriber(moonshine: MoonshineTranscriber(layout: layout), whisper: whisper)
        #expect(local.engine(for: TranscriptionOptions(language: "en"), seconds: 3) is MoonshineTranscriber)
        #expect(local.engine(for: TranscriptionOptions(language: " EN "), seconds: nil) is MoonshineTranscriber)
        #expect(local.engine(for: TranscriptionOptions(language: "ko"), seconds: 3) is WhisperServerTranscriber)
        #expect(local.engine(for: TranscriptionOptions(), seconds: 3) is WhisperServerTranscriber)
        #expect(local.engine(for: TranscriptionOptions(translate: true, language: "en"), seconds: 3) is WhisperServerTranscriber)
        #expect(local.engine(for: TranscriptionOptions(language: "en", format: .srt), seconds: 3) is WhisperServerTranscriber)
        #expect(local.engine(for: TranscriptionOptions(language: "en"), seconds: 45) is WhisperServerTranscriber)
        #expect(LocalTranscriber(moonshine: nil, whisper: whisper).engine(for: TranscriptionOptions(language: "en"), seconds: 3) is WhisperServerTranscriber)
    }
}
