import Foundation
import SibylCore
import SibylTestSupport
import TestFixtures
import Testing
@testable import LocalEngines

extension TestEngines {
    static let silero = SileroVoiceDetector(layout: layout)
    static var sileroEnabled: Bool { silero.isInstalled || required }
    static let sileroMissing: Comment = "Silero VAD or ONNX Runtime is not installed (sibyl models install stt; SIBYL_REQUIRE_ENGINES=1 turns this skip into a failure)"
}

/// Silero VAD on the installed ONNX Runtime, driving the voice-activity detector with real speech.
@Suite("Silero VAD: where real speech starts and ends", .timeLimit(.minutes(10)), .enabled(if: TestEngines.sileroEnabled, TestEngines.sileroMissing))
struct SileroTests {
    static let rate = 16_000

    static func clip(_ id: String) throws -> [Int16] {
        try AudioResampling.speechPCM16(fromWAV: Data(contentsOf: TestEngines.librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-\(id).wav")))
    }

    static func silence(_ seconds: Double) -> [Int16] { [Int16](repeating: 0, count: Int(seconds * Double(rate))) }

    /// Feeds audio in 100 ms chunks, as a microphone delivers it; the detector's events with the
    /// sample where each was decided.
    static func events(_ samples: [Int16], hangover: Duration) throws -> [(VoiceActivityDetector.Event, decidedAt: Int)] {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.hangover = hangover
        var detector = VoiceActivityDetector(configuration: configuration, classifier: try TestEngines.silero.stream())
        var decided: [(VoiceActivityDetector.Event, decidedAt: Int)] = []
        var fed = 0
        for start in stride(from: 0, to: samples.count, by: rate / 10) {
            let chunk = samples[start..<min(samples.count, start + rate / 10)]
            fed += chunk.count
            decided += detector.process(chunk).map { ($0, fed) }
        }
        return decided
    }

    @Test("A question between silences: speech found where it is, its end heard within the hang-over", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func startAndEnd() throws {
        let speech = try Self.clip("0880")
        let events = try Self.events(Self.silence(1) + speech + Self.silence(2), hangover: .milliseconds(500))
        guard events.count == 2, case .speechStarted(let start) = events[0].0, case .speechEnded(let end) = events[1].0 else {
            Issue.record("expected a start and an end: \(events.map(\.0))")
            return
        }
        // The clip has a little quiet at each end of its own.
        #expect(abs(start - Self.rate) < Self.rate / 2, "start at \(start)")
        #expect(end > Self.rate + speech.count * 3 / 4 && end <= Self.rate + speech.count + Self.rate / 10, "end at \(end)")
        // Decided no later than the hang-over (and a frame) after the last speech frame.
        #expect(events[1].decidedAt - end <= Self.rate / 2 + Self.rate / 10 + 512, "decided \(events[1].decidedAt - end) samples after the end")
    }

    @Test("A sentence with a 400 ms pause in it stays one question", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func pausedSentenceStaysWhole() throws {
        // Each clip cut to its words (the readings have quiet of their own at each end), so the
        // pause between the two is 400 ms exactly.
        func words(_ id: String) throws -> [Int16] {
            let clip = try Self.clip(id)
            let range = try #require(VoiceActivityDetector.speechRange(in: clip, classifier: try TestEngines.silero.stream()))
            return Array(clip[range])
        }
        let first = try words("0880"), second = try words("0930")
        let audio = Self.silence(0.5) + first + Self.silence(0.4) + second + Self.silence(1.5)
        let events = try Self.events(audio, hangover: .milliseconds(500))
        #expect(events.count == 2, "\(events.map(\.0))")
        guard case .speechEnded(let end)? = events.last?.0 else {
            Issue.record("no end of speech: \(events.map(\.0))")
            return
        }
        let secondStart = Self.rate / 2 + first.count + Int(0.4 * Double(Self.rate))
        #expect(end > secondStart + second.count / 2, "the end (\(end)) must come after the second part began (\(secondStart))")
    }

    @Test("Loud noise without a voice is not speech (loudness alone says it is)")
    func noiseIsNotSpeech() throws {
        var random = SplitMix64(seed: 7)
        let noise = (0..<(Self.rate * 3)).map { _ in Int16(truncatingIfNeeded: Int(random.next() % 8_000) - 4_000) }
        let audio = Self.silence(0.5) + noise
        var configuration = VoiceActivityDetector.Configuration()
        configuration.waitForSpeech = .seconds(3)
        var silero = VoiceActivityDetector(configuration: configuration, classifier: try TestEngines.silero.stream())
        var energy = VoiceActivityDetector(configuration: configuration)
        #expect(silero.process(audio).contains(.noSpeech))
        #expect(energy.process(audio).contains { if case .speechStarted = $0 { true } else { false } })
    }

    @Test("In a whole recording, Silero finds the speech", .enabled(if: TestEngines.librivoxEnabled, TestEngines.librivoxMissing))
    func wholeRecording() throws {
        let speech = try Self.clip("0930")
        let range = try #require(VoiceActivityDetector.speechRange(in: Self.silence(1) + speech + Self.silence(1), classifier: try TestEngines.silero.stream()))
        #expect(abs(range.lowerBound - Self.rate) < Self.rate / 2, "\(range)")
        #expect(range.upperBound > Self.rate + speech.count * 3 / 4 && range.upperBound <= 2 * Self.rate + speech.count, "\(range)")
    }
}
