import Foundation
import SibylCore
import Synchronization
import Testing

/// A classifier that answers from a script, one probability per frame (then 0).
final class ScriptedClassifier: SpeechClassifier {
    let frameLength: Int
    private let script: Mutex<[Float?]>

    init(frameLength: Int = 512, _ probabilities: [Float?]) {
        self.frameLength = frameLength
        script = Mutex(probabilities)
    }

    func speechProbability(_ frame: [Float]) -> Float? {
        script.withLock { $0.isEmpty ? 0 : $0.removeFirst() }
    }
}

@Suite("Voice-activity detection by a speech classifier", .timeLimit(.minutes(5)))
struct SpeechClassifierDetectionTests {
    static func frames(_ count: Int) -> [Int16] { [Int16](repeating: 0, count: count * 512) }

    @Test("Frames are judged by the classifier, with Silero's hysteresis, not by loudness")
    func hysteresisAndHangover() {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.onset = .milliseconds(64)
        configuration.hangover = .milliseconds(500)
        // 2 quiet frames, 4 of speech, 3 just above the pause level (still speech), 16 below it (512 ms).
        let script: [Float?] = [0.1, 0.1, 0.9, 0.9, 0.9, 0.9, 0.4, 0.4, 0.4] + Array(repeating: 0.2, count: 16)
        var detector = VoiceActivityDetector(configuration: configuration, classifier: ScriptedClassifier(script))
        #expect(detector.frameLength == 512)
        // Digital silence: loudness alone would never call it speech.
        let events = detector.process(Self.frames(25))
        #expect(events == [.speechStarted(sample: 2 * 512), .speechEnded(sample: 9 * 512)])
        #expect(detector.isDone)
    }

    @Test("A probability just under the start level does not start speech; a failed frame falls back to loudness")
    func startLevelAndFallback() {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.onset = .milliseconds(32)
        configuration.waitForSpeech = .milliseconds(320)
        var quiet = VoiceActivityDetector(configuration: configuration, classifier: ScriptedClassifier(Array(repeating: 0.49, count: 10)))
        #expect(quiet.process(Self.frames(10)) == [.noSpeech])
        // The classifier fails on every frame: a loud tone is then speech by its loudness (with no
        // time spent learning the room's noise, which would take the tone for it).
        configuration.calibration = .zero
        let tone = (0..<(512 * 10)).map { Int16(0.3 * 32767 * sin(2 * .pi * 300 * Double($0) / 16_000)) }
        var failing = VoiceActivityDetector(configuration: configuration, classifier: ScriptedClassifier(Array(repeating: nil, count: 10)))
        #expect(failing.process(Self.frames(1) + tone).contains(.speechStarted(sample: 512)))
    }

    @Test("A classifier is only used at 16 kHz; whole recordings are judged by it too")
    func rateAndWholeRecordings() {
        let detector = VoiceActivityDetector(sampleRate: 8_000, classifier: ScriptedClassifier([]))
        #expect(detector.classifier == nil)
        #expect(detector.frameLength == 160)
        let script: [Float?] = [0, 0, 0.8, 0.8, 0.8, 0.8, 0.8, 0, 0, 0]
        let range = VoiceActivityDetector.speechRange(in: Self.frames(10), classifier: ScriptedClassifier(script))
        #expect(range == 2 * 512..<7 * 512)
    }
}
