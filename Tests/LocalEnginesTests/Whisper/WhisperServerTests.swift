import Foundation
import SibylCore
import SibylTestSupport
import TestFixtures
import Testing
@testable import LocalEngines

/// The resident whisper-server: one model load for every question, a window shorter than Whisper's
/// 30 s without losing the words of a longer recording, restarts, cancels and refusals.
@Suite("whisper-server, kept loaded", .timeLimit(.minutes(30)), .serialized, .enabled(if: TestEngines.whisperEnabled, TestEngines.whisperMissing))
struct WhisperServerTests {
    /// A server of its own (the accuracy tests share another), stopped afterwards whatever happens.
    func withServer(_ body: (WhisperServerTranscriber, URL) async throws -> Void) async throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-whisper-server-\(UUID().uuidString).log")
        let server = WhisperServerTranscriber(configuration: .init(layout: TestEngines.layout, logFile: log, threads: min(4, WhisperTranscriber.defaultThreads)))
        try await withTeardown { try await body(server, log) } teardown: {
            await server.stop()
            try? FileManager.default.removeItem(at: log)
        }
    }

    static func clip(_ id: String) throws -> Data {
        try Data(contentsOf: TestEngines.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-\(id).wav"))
    }

    static func wav(_ data: Data) -> AudioFile { AudioFile(data: data, format: .wav) }

    /// What whisper-server wrote to its log: the model load, and a line per recording.
    static func log(_ url: URL) -> String { (try? String(contentsOf: url, encoding: .utf8)) ?? "" }

    @Test("The model is loaded once for many questions", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func oneLoadForManyQuestions() async throws {
        try await withServer { server, log in
            try await server.start()
            let pid = try #require(await server.processID)
            for id in ["0880", "0930", "0880"] {
                let heard = try await server.transcribe(Self.wav(Self.clip(id)), options: TranscriptionOptions(language: "en"))
                #expect(!heard.text.isEmpty)
                #expect(heard.language == "en")
            }
            #expect(await server.launches == 1)
            #expect(await server.processID == pid)
            let text = Self.log(log)
            #expect(text.components(separatedBy: "whisper_model_load: loading model").count - 1 == 1, "one model load")
            // The warm-up, then the three questions.
            #expect(text.components(separatedBy: "processing 'speech.wav'").count - 1 == 4)
        }
    }

    @Test("A recording longer than the window is transcribed whole", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func longerThanTheWindow() async throws {
        let clips = try WhisperAccuracyTests.librivoxClips()
        let audio = try WAVAudio.concatenate(clips.map { try WAVAudio(parsing: Data(contentsOf: TestEngines.librivox.appendingPathComponent("\($0.id).wav"))) })
        let window = Double(WhisperServerTranscriber.defaultWindowFrames) * 0.02
        #expect(audio.duration > window + 5, "the recording must outlast the window")
        try await withServer { server, _ in
            let heard = try await server.transcribe(Self.wav(audio.encoded()), options: TranscriptionOptions(language: "en"))
            let wer = WordErrorRate(reference: clips.map(\.reference).joined(separator: " "), hypothesis: heard.text)
            #expect(wer.rate <= 0.10, "\(wer): \(heard.text)")
            #expect(heard.text.lowercased().contains("amiable himself"), "the last clip's words: \(heard.text)")
        }
    }

    @Test("An unknown language is refused without starting the server")
    func unknownLanguage() async throws {
        try await withServer { server, _ in
            let silence = AudioResampling.wav(pcm16: [Int16](repeating: 0, count: 16_000), sampleRate: 16_000).encoded()
            await #expect(throws: WhisperError.unknownLanguage("xx")) {
                try await server.transcribe(Self.wav(silence), options: TranscriptionOptions(language: "XX"))
            }
            #expect(await server.launches == 0)
        }
    }

    @Test("It starts again after its process dies, and stop() ends it", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func restartsAndStops() async throws {
        try await withServer { server, _ in
            try await server.start()
            let pid = try #require(await server.processID)
            kill(pid, SIGKILL)
            try await eventually("the server to notice its process died") { await server.processID == nil }
            let heard = try await server.transcribe(Self.wav(Self.clip("0930")), options: TranscriptionOptions(language: "en"))
            #expect(heard.text.lowercased().contains("amiable"), "\(heard.text)")
            #expect(await server.launches == 2)
            let running = try #require(await server.processID)
            await server.stop()
            #expect(await server.processID == nil)
            #expect(kill(running, 0) != 0, "the process must be gone after stop()")
        }
    }

    @Test("A cancelled question stops whisper-server's work on it, and the next one is answered", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func cancellation() async throws {
        let clips = try WhisperAccuracyTests.librivoxClips().map { try WAVAudio(parsing: Data(contentsOf: TestEngines.librivox.appendingPathComponent("\($0.id).wav"))) }
        // About 50 s of speech: several windows, so whisper.cpp is still busy when the question is cancelled.
        let audio = try WAVAudio.concatenate(clips + clips)
        let long = audio.encoded()
        let samples = Int((audio.duration * 16_000).rounded())
        try await withServer { server, log in
            try await server.start()
            let task = Task { try await server.transcribe(Self.wav(long), options: TranscriptionOptions(language: "en")) }
            // The server logs each recording as it begins working on it.
            try await eventually("whisper-server to begin the long recording") { Self.log(log).contains("(\(samples) samples") }
            task.cancel()
            let outcome = try await waitFor("the question to end after the cancel", within: .seconds(300)) { await task.result }
            #expect(throws: CancellationError.self) { try outcome.get() }
            try await eventually("whisper-server to give the recording up") { Self.log(log).contains("aborted processing") }
            let heard = try await server.transcribe(Self.wav(Self.clip("0880")), options: TranscriptionOptions(language: "en"))
            #expect(heard.text.lowercased().contains("young man"), "\(heard.text)")
            #expect(await server.launches == 1)
        }
    }
}
