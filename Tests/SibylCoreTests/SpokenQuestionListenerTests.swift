import Foundation
import SibylCore
import Synchronization
import Testing

/// A transcriber that answers from a script and keeps the length of each recording it was given.
final class ScriptedTranscriber: Transcriber {
    private let state: Mutex<(texts: [String], seconds: [Double])>

    init(_ texts: [String]) {
        state = Mutex((texts, []))
    }

    var calls: [Double] { state.withLock { $0.seconds } }

    func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        let seconds = try WAVAudio(parsing: audio.data).duration
        let text = state.withLock { state in
            state.seconds.append(seconds)
            return state.texts.isEmpty ? "" : state.texts.removeFirst()
        }
        return Transcription(text: text, language: "en", duration: seconds)
    }
}

/// A drafting transcriber that hears one word per quarter second of recording ("w1 w2 …", tokens
/// 1, 2 …) and keeps the draft each call was given.
final class CountingTranscriber: DraftingTranscriber {
    private let state = Mutex<[(seconds: Double, draft: [Int]?)]>([])

    var calls: [(seconds: Double, draft: [Int]?)] { state.withLock { $0 } }

    func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        try await transcribe(audio, options: options, draft: nil)
    }

    func transcribe(_ audio: AudioFile, options: TranscriptionOptions, draft: Transcription?) async throws -> Transcription {
        let seconds = try WAVAudio(parsing: audio.data).duration
        state.withLock { $0.append((seconds, draft?.tokens)) }
        let tokens = Array(1...max(1, Int(seconds * 4)))
        return Transcription(text: tokens.map { "w\($0)" }.joined(separator: " ") + ".", language: "en", duration: seconds, tokens: tokens)
    }
}

@Suite("A spoken question's end, by sound and by sense", .timeLimit(.minutes(5)))
struct SpokenQuestionListenerTests {
    /// Frames of 512 samples (32 ms) judged speech (1) or not (0) by a scripted classifier.
    static func listener(_ script: [Float], texts: [String], patience: Duration = .milliseconds(1200)) -> (SpokenQuestionListener, ScriptedTranscriber) {
        let transcriber = ScriptedTranscriber(texts)
        return (listener(script, transcriber: transcriber, patience: patience), transcriber)
    }

    /// A listener on a scripted classifier (64 ms onset, `hangover`), with partial transcripts every `partials`.
    static func listener(
        _ script: [Float], transcriber: any Transcriber, hangover: Duration = .milliseconds(480), patience: Duration = .milliseconds(1200), partials: Duration? = nil
    ) -> SpokenQuestionListener {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.onset = .milliseconds(64)
        configuration.hangover = hangover
        let detector = VoiceActivityDetector(configuration: configuration, classifier: ScriptedClassifier(script))
        return SpokenQuestionListener(detector: detector, transcriber: transcriber, options: TranscriptionOptions(language: "en"), patience: patience, partialInterval: partials)
    }

    static func frames(_ count: Int) -> [Int16] { [Int16](repeating: 0, count: count * 512) }

    static func speech(_ outcome: SpokenQuestionListener.Outcome) -> (text: String, seconds: Double)? {
        guard case .heard(let transcription, let speech) = outcome else { return nil }
        return (transcription.text, speech.duration)
    }

    @Test("A finished sentence is the question as soon as the hang-over has passed")
    func finishedSentence() async throws {
        // 10 quiet frames, 40 of speech (1.28 s), then 15 quiet (the 480 ms hang-over).
        let (listener, transcriber) = Self.listener(Array(repeating: 0, count: 10) + Array(repeating: 1, count: 40) + Array(repeating: 0, count: 15), texts: ["What is the capital of France?"])
        await listener.add(Self.frames(65))
        let heard = try #require(Self.speech(try await listener.result()))
        #expect(heard.text == "What is the capital of France?")
        #expect(transcriber.calls.count == 1)
        // The speech, with a quarter second each side.
        #expect(abs(heard.seconds - (40 * 512 + 8_000) / 16_000.0) < 0.01)
    }

    @Test("Partial transcripts form while the person speaks, and the latest is the final one's draft")
    func partialTranscripts() async throws {
        let script: [Float] = [0, 0] + Array(repeating: 1, count: 80) + Array(repeating: 0, count: 15)
        let transcriber = CountingTranscriber()
        let listener = Self.listener(script, transcriber: transcriber, partials: .milliseconds(320))
        // 1.3 s of speech, a frame at a time as a microphone gives it.
        for _ in 0..<42 { await listener.add(Self.frames(1)) }
        var words = await listener.partials().makeAsyncIterator()
        let partial = try #require(await words.next(), "a partial transcript comes")
        #expect(await !listener.isDone, "the words show while the person is still speaking")
        #expect(partial.hasPrefix("w1"))
        // The rest of the speech, then the hang-over.
        for _ in 42..<97 { await listener.add(Self.frames(1)) }
        let heard = try #require(Self.speech(try await listener.result()))
        let calls = transcriber.calls
        #expect(calls.count >= 2, "\(calls)")
        let final = try #require(calls.last)
        #expect(final.draft != nil, "the final transcription had a draft")
        #expect(calls.dropLast().contains { Int($0.seconds * 4) == final.draft?.count }, "the draft is an earlier partial transcript: \(calls)")
        #expect(heard.text == (1...Int(final.seconds * 4)).map { "w\($0)" }.joined(separator: " ") + ".", "the question is the final transcript, not a partial")
    }

    @Test("With partials on, a finished sentence ends the question after a short quiet, before the hang-over; unfinished words wait")
    func endBySenseSooner() async throws {
        // 1 s of speech, then quiet: 12 frames (384 ms) pass the 300 ms quiet, 25 (800 ms) the hang-over.
        let script: [Float] = [0, 0] + Array(repeating: 1, count: 32) + Array(repeating: 0, count: 40)
        let transcriber = CountingTranscriber()
        let listener = Self.listener(script, transcriber: transcriber, hangover: .milliseconds(800), partials: .seconds(10))
        for _ in 0..<(2 + 32 + 12) { await listener.add(Self.frames(1)) }
        // No more sound arrives: the quiet so far is transcribed, and its full stop ends the question.
        let heard = try #require(Self.speech(try await listener.result()))
        #expect(heard.text.hasSuffix("."))
        #expect(try #require(await listener.transcriptLag) < .milliseconds(800), "sooner than the hang-over")

        // Words that do not end a sentence wait for the hang-over and the patience, as before.
        let unfinished = ScriptedTranscriber(["Remind me to", "Remind me to"])
        let waiting = Self.listener(script, transcriber: unfinished, hangover: .milliseconds(800), partials: .seconds(10))
        for _ in 0..<(2 + 32 + 12) { await waiting.add(Self.frames(1)) }
        // The early check's words come back (as the words so far), unfinished.
        var words = await waiting.partials().makeAsyncIterator()
        #expect(await words.next() == "Remind me to")
        // More quiet, still inside the hang-over.
        for _ in 0..<5 { await waiting.add(Self.frames(1)) }
        #expect(await !waiting.isDone, "unfinished words are not the question")
        for _ in 0..<40 { await waiting.add(Self.frames(1)) }
        let rest = try #require(Self.speech(try await waiting.result()))
        #expect(rest.text == "Remind me to")
        #expect(unfinished.calls.count == 1, "the quiet was transcribed once, not again when the hang-over ran out")
    }

    @Test("Words that stop mid-sentence wait for the rest, and the whole question is heard")
    func pauseMidSentence() async throws {
        let script: [Float] = [0, 0] + Array(repeating: 1, count: 30) + Array(repeating: 0, count: 20) + Array(repeating: 1, count: 30) + Array(repeating: 0, count: 15)
        let (listener, transcriber) = Self.listener(script, texts: ["And so, my fellow Americans,", "And so, my fellow Americans, ask not what your country can do for you."])
        await listener.add(Self.frames(52))
        #expect(await !listener.isDone, "a sentence that does not end is not the question")
        await listener.add(Self.frames(45))
        let heard = try #require(Self.speech(try await listener.result()))
        #expect(heard.text.hasSuffix("can do for you."))
        #expect(transcriber.calls.count == 2)
        #expect(heard.seconds > transcriber.calls[0] + 1)
    }

    @Test("A pause that comes after the wait for speech has run out still waits for the rest")
    func pauseLateInALongQuestion() async throws {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.onset = .milliseconds(64)
        configuration.hangover = .milliseconds(480)
        // Nobody may take longer than 640 ms to start, but the question itself runs past that.
        configuration.waitForSpeech = .milliseconds(640)
        let script: [Float] = [0] + Array(repeating: 1, count: 30) + Array(repeating: 0, count: 20) + Array(repeating: 1, count: 20) + Array(repeating: 0, count: 15)
        let transcriber = ScriptedTranscriber(["Remind me to", "Remind me to call my mother."])
        let listener = SpokenQuestionListener(detector: VoiceActivityDetector(configuration: configuration, classifier: ScriptedClassifier(script.map { $0 })), transcriber: transcriber, options: TranscriptionOptions())
        await listener.add(Self.frames(51))
        await listener.add(Self.frames(35))
        let heard = try #require(Self.speech(try await listener.result()))
        #expect(heard.text == "Remind me to call my mother.")
        #expect(transcriber.calls.count == 2)
    }

    @Test("With no more speech, the unfinished sentence is the question once the patience runs out")
    func patience() async throws {
        let (listener, transcriber) = Self.listener([0] + Array(repeating: 1, count: 30) + Array(repeating: 0, count: 60), texts: ["Remind me to"], patience: .milliseconds(1200))
        await listener.add(Self.frames(91))
        let heard = try #require(Self.speech(try await listener.result()))
        #expect(heard.text == "Remind me to")
        #expect(transcriber.calls.count == 1, "nothing is transcribed twice")
    }

    @Test("Silence is no question; a stop keeps what was said")
    func silenceAndStop() async throws {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.waitForSpeech = .milliseconds(320)
        let quiet = SpokenQuestionListener(
            detector: VoiceActivityDetector(configuration: configuration, classifier: ScriptedClassifier([])), transcriber: ScriptedTranscriber([]), options: TranscriptionOptions()
        )
        await quiet.add(Self.frames(12))
        guard case .noSpeech = try await quiet.result() else { Issue.record("expected no speech"); return }

        let (listener, transcriber) = Self.listener([0] + Array(repeating: 1, count: 30), texts: ["Turn on the"])
        await listener.add(Self.frames(31))
        await listener.stop()
        let heard = try #require(Self.speech(try await listener.result()))
        #expect(heard.text == "Turn on the")
        #expect(transcriber.calls.count == 1)
    }

    @Test("Sentence ends, in several scripts and behind quotes")
    func sentenceEnds() {
        for text in ["Yes.", "Why?", "Stop!", "He said \"go.\"", "(Really?)", "끝났어요.", "好的。"] {
            #expect(SpokenQuestionListener.endsSentence(text), "\(text)")
        }
        for text in ["And so,", "Remind me to", "Wait...", "", "The number is 3"] {
            #expect(!SpokenQuestionListener.endsSentence(text), "\(text)")
        }
    }
}
