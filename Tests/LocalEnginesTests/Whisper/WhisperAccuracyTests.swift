import Foundation
import SibylCore
import SibylTestSupport
import TestFixtures
import Testing
@testable import LocalEngines

/// The real whisper.cpp with the installed model, one transcription at a time, run both ways:
/// a whisper-cli process per recording, and the resident whisper-server.
@Suite("Whisper transcription with the installed engine", .timeLimit(.minutes(30)), .serialized, .enabled(if: TestEngines.whisperEnabled, TestEngines.whisperMissing))
struct WhisperAccuracyTests {
    static func transcribe(_ wav: Data, _ options: TranscriptionOptions = TranscriptionOptions(), with engine: TestEngines.Whisper) async throws -> (Transcription, Duration) {
        let clock = ContinuousClock()
        var result: Transcription?
        let elapsed = try await clock.measure {
            result = try await engine.transcriber.transcribe(AudioFile(data: wav, format: .wav), options: options)
        }
        return (try #require(result), elapsed)
    }

    /// The clips and their reference transcripts (`<s> words </s> (clip-id)` lines).
    static func librivoxClips() throws -> [(id: String, reference: String)] {
        let text = try String(contentsOf: TestEngines.librivox.appendingPathComponent("transcription"), encoding: .utf8)
        return text.split(separator: "\n").compactMap { line in
            guard let open = line.lastIndex(of: "("), let close = line.lastIndex(of: ")") else { return nil }
            let id = String(line[line.index(after: open)..<close])
            let words = line[..<open].replacingOccurrences(of: "<s>", with: "").replacingOccurrences(of: "</s>", with: "")
            return (id, words.trimmingCharacters(in: .whitespaces))
        }
    }

    @Test("WER ≤ 10 % on the five LibriVox clips", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing), arguments: TestEngines.Whisper.allCases)
    func librivoxWordErrorRate(engine: TestEngines.Whisper) async throws {
        let clips = try Self.librivoxClips()
        #expect(clips.count == 5)
        var total = WordErrorRate(errors: 0, referenceWords: 0)
        var audioSeconds = 0.0
        var elapsed = Duration.zero
        for clip in clips {
            let wav = try Data(contentsOf: TestEngines.librivox.appendingPathComponent("\(clip.id).wav"))
            let (result, time) = try await Self.transcribe(wav, with: engine)
            let wer = WordErrorRate(reference: clip.reference, hypothesis: result.text)
            print("[\(engine)] \(clip.id): \(wer) in \(time) — \(result.text)")
            #expect(result.language == "en")
            total = total + wer
            audioSeconds += result.duration ?? 0
            elapsed += time
        }
        print("[\(engine)] LibriVox WER \(total); \(String(format: "%.1f", audioSeconds)) s of audio in \(elapsed)")
        #expect(total.rate <= 0.10, "WER \(total)")
    }

    @Test("espeak-ng speech (22,050 Hz) → 16 kHz → Whisper comes back word for word", .enabled(if: TestEngines.espeakEnabled, TestEngines.espeakMissing), arguments: TestEngines.Whisper.allCases)
    func espeakRoundTrip(engine: TestEngines.Whisper) async throws {
        let sentence = "The quick brown fox jumps over the lazy dog. Please send the report to the office before noon."
        let spoken = try TestEngines.speak(sentence)
        let original = try WAVAudio(parsing: spoken)
        #expect(original.sampleRate == 22_050)
        let speech = try AudioResampling.speechWAV(fromWAV: spoken)
        #expect(speech.sampleRate == 16_000)
        #expect(abs(speech.duration - original.duration) < 0.001)
        let (result, time) = try await Self.transcribe(speech.encoded(), TranscriptionOptions(language: "en"), with: engine)
        let wer = WordErrorRate(reference: sentence, hypothesis: result.text)
        print("[\(engine)] espeak-ng round trip: \(wer) in \(time) — \(result.text)")
        #expect(wer.rate <= 0.15, "\(result.text)")
    }

    @Test("Monocle audio (signed 8-bit, 8 kHz) is transcribed", .enabled(if: TestEngines.espeakEnabled, TestEngines.espeakMissing), arguments: TestEngines.Whisper.allCases)
    func monocleAudio(engine: TestEngines.Whisper) async throws {
        let sentence = "Please remind me to call my mother tomorrow morning."
        let spoken = try PCMBuffer(wav: TestEngines.speak(sentence))
        let narrowband = AudioResampling.resample(spoken.samples, from: spoken.sampleRate, to: 8_000)
        let samples = AudioResampling.speechPCM16(fromSigned8: AudioResampling.signed8(narrowband))
        let wav = AudioResampling.wav(pcm16: samples, sampleRate: 16_000)
        let (result, time) = try await Self.transcribe(wav.encoded(), with: engine)
        let wer = WordErrorRate(reference: sentence, hypothesis: result.text)
        print("[\(engine)] Monocle 8-bit 8 kHz: \(wer) in \(time) — \(result.text)")
        #expect(wer.rate <= 0.25, "\(result.text)")
        #expect(result.text.lowercased().contains("mother"))
    }

    @Test("German speech is translated into English", .enabled(if: TestEngines.espeakEnabled, TestEngines.espeakMissing), arguments: TestEngines.Whisper.allCases)
    func translation(engine: TestEngines.Whisper) async throws {
        let spoken = try TestEngines.speak("Guten Morgen. Das Wetter ist heute sehr schön, und ich trinke einen Kaffee.", voice: "de")
        let (result, time) = try await Self.transcribe(spoken, TranscriptionOptions(translate: true), with: engine)
        print("[\(engine)] translation de → en in \(time): \(result.text)")
        #expect(result.language == "de")
        let text = result.text.lowercased()
        #expect(text.contains("morning"), "\(result.text)")
        #expect(text.contains("coffee"), "\(result.text)")
        #expect(!text.contains("kaffee"), "\(result.text)")
    }

    @Test("A float32 stereo 44.1 kHz WAV gives the same transcript", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing), arguments: TestEngines.Whisper.allCases)
    func floatStereoInput(engine: TestEngines.Whisper) async throws {
        let source = try PCMBuffer(wav: Data(contentsOf: TestEngines.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0880.wav")))
        let upsampled = AudioResampling.resample(source.samples, from: source.sampleRate, to: 44_100)
        var payload = Data(capacity: upsampled.count * 8)
        for sample in upsampled {
            for channel in [sample, sample * 0.5] {
                withUnsafeBytes(of: channel.bitPattern.littleEndian) { payload.append(contentsOf: $0) }
            }
        }
        let wav = Self.floatWAV(payload, channels: 2, rate: 44_100)
        let (result, _) = try await Self.transcribe(wav, TranscriptionOptions(language: "en", prompt: "Sense and Sensibility, by Jane Austen."), with: engine)
        #expect(WordErrorRate(reference: "he was not an ill disposed young man", hypothesis: result.text).errors == 0, "\(result.text)")
        #expect(abs((result.duration ?? 0) - source.duration) < 0.001)
    }

    @Test("SRT subtitles come back with timings", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing), arguments: TestEngines.Whisper.allCases)
    func subtitles(engine: TestEngines.Whisper) async throws {
        let wav = try Data(contentsOf: TestEngines.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-0930.wav"))
        let (result, _) = try await Self.transcribe(wav, TranscriptionOptions(language: "en", format: .srt), with: engine)
        #expect(result.text.hasPrefix("1\n00:00:00,000 --> 00:00:0"), "\(result.text)")
        #expect(result.text.contains("He might even have been made amiable himself."))
    }

    @Test("Cancelling a running transcription stops it promptly", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func cancellation() async throws {
        // About 50 s of speech: long enough that whisper.cpp is still busy when the task is cancelled.
        let clips = try Self.librivoxClips().map { try WAVAudio(parsing: Data(contentsOf: TestEngines.librivox.appendingPathComponent("\($0.id).wav"))) }
        let wav = try WAVAudio.concatenate(clips + clips).encoded()
        let task = Task { try await TestEngines.transcriber.transcribe(AudioFile(data: wav, format: .wav), options: TranscriptionOptions()) }
        // Cancelled once whisper-cli runs (a child of this process; nothing tells the test when it starts).
        let model = TestEngines.layout.whisperModel.lastPathComponent
        try await eventually("whisper-cli to start") { !Self.children(named: "whisper-cli", withArgumentEndingIn: model).isEmpty }
        task.cancel()
        // The cancel surfaces as CancellationError rather than a transcript; that whisper-cli itself
        // is stopped is checked with a stand-in program (WhisperTranscriberTests). The ceiling only
        // catches a lost cancel, since a busy machine is slow at any teardown.
        let outcome = try await waitFor("the transcription to end after the cancel", within: .seconds(300)) { await task.result }
        #expect(throws: CancellationError.self) { try outcome.get() }
    }

    /// The children of this process running a program named `name` with an argument ending in
    /// `argument` (other tests run stand-ins of the same name), from /proc.
    static func children(named name: String, withArgumentEndingIn argument: String) -> [Int32] {
        ProcessTable.children(of: getpid()).filter { pid in
            let command = ProcessTable.commandLine(of: pid)
            return command.first.map { URL(fileURLWithPath: $0).lastPathComponent } == name && command.dropFirst().contains { $0.hasSuffix(argument) }
        }
    }

    static func floatWAV(_ payload: Data, channels: Int, rate: Int) -> Data {
        var data = Data()
        func text(_ string: String) { data.append(contentsOf: Array(string.utf8)) }
        func u16(_ value: Int) { withUnsafeBytes(of: UInt16(value).littleEndian) { data.append(contentsOf: $0) } }
        func u32(_ value: Int) { withUnsafeBytes(of: UInt32(value).littleEndian) { data.append(contentsOf: $0) } }
        text("RIFF"); u32(36 + payload.count); text("WAVE")
        text("fmt "); u32(16); u16(3); u16(channels); u32(rate); u32(rate * channels * 4); u16(channels * 4); u16(32)
        text("data"); u32(payload.count)
        data.append(payload)
        return data
    }
}
