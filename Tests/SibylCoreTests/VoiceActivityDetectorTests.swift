import Foundation
import SibylCore
import Testing

@Suite("Voice-activity detection", .timeLimit(.minutes(10)))
struct VoiceActivityDetectorTests {
    /// A 300 Hz tone at the given peak level (0…1), as 16 kHz samples.
    static func tone(seconds: Double, amplitude: Double) -> [Int16] {
        (0..<Int(seconds * 16_000)).map { Int16(amplitude * 32767 * sin(2 * .pi * 300 * Double($0) / 16_000)) }
    }

    /// Quiet background noise, about -60 dBFS.
    static func noise(seconds: Double) -> [Int16] {
        var generator = SystemRandomNumberGenerator()
        return (0..<Int(seconds * 16_000)).map { _ in Int16.random(in: -40...40, using: &generator) }
    }

    @Test func speechStartsAfterTheOnsetAndEndsAfterTheHangover() {
        var detector = VoiceActivityDetector()
        var events: [VoiceActivityDetector.Event] = []
        events += detector.process(Self.noise(seconds: 1))
        #expect(events.isEmpty)
        events += detector.process(Self.tone(seconds: 1.5, amplitude: 0.3))
        #expect(events == [.speechStarted(sample: 16_000)])
        // A pause shorter than the hang-over (0.9 s) is part of the utterance.
        events += detector.process(Self.noise(seconds: 0.5))
        events += detector.process(Self.tone(seconds: 0.5, amplitude: 0.3))
        #expect(events.count == 1)
        events += detector.process(Self.noise(seconds: 1.5))
        #expect(events.last == .speechEnded(sample: 16_000 * 7 / 2))
        #expect(detector.isDone)
        #expect(detector.process(Self.tone(seconds: 1, amplitude: 0.3)).isEmpty, "done is done")
    }

    @Test func aClickIsNotSpeechAndSilenceRunsOut() {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.waitForSpeech = .seconds(2)
        var detector = VoiceActivityDetector(configuration: configuration)
        var events = detector.process(Self.noise(seconds: 0.5))
        events += detector.process(Self.tone(seconds: 0.05, amplitude: 0.8))
        events += detector.process(Self.noise(seconds: 2))
        #expect(events == [.noSpeech])
    }

    @Test func speechInNoiseNeedsToRiseAboveTheNoise() {
        // Loud background noise (about -20 dBFS) learnt before the words raises the bar.
        let loudNoise = (0..<16_000).map { _ in Int16.random(in: -5000...5000) }
        var detector = VoiceActivityDetector()
        #expect(detector.process(loudNoise).isEmpty)
        #expect(detector.threshold > -30)
        #expect(detector.process(Self.tone(seconds: 0.5, amplitude: 0.05)).isEmpty, "quieter than the room")
        #expect(detector.process(Self.tone(seconds: 0.5, amplitude: 0.9)).first == .speechStarted(sample: 24_000))
    }

    @Test func tooLongSpeechEndsAtTheLimit() {
        var configuration = VoiceActivityDetector.Configuration()
        configuration.maximumSpeech = .seconds(2)
        var detector = VoiceActivityDetector(configuration: configuration)
        let events = detector.process(Self.noise(seconds: 0.5) + Self.tone(seconds: 3, amplitude: 0.3))
        #expect(events.first == .speechStarted(sample: 8_000))
        #expect(events.last == .tooLong(sample: 40_000))
    }

    @Test func theSpeechInARecordingIsFound() {
        let recording = Self.noise(seconds: 1) + Self.tone(seconds: 1, amplitude: 0.3) + Self.noise(seconds: 0.4) + Self.tone(seconds: 0.5, amplitude: 0.3) + Self.noise(seconds: 1)
        #expect(VoiceActivityDetector.speechRange(in: recording) == 16_000..<46_400)
        #expect(VoiceActivityDetector.speechRange(in: Self.noise(seconds: 2)) == nil)
    }

    @Test func audioFormatsAreRecognisedFromTheirBytesAndTypes() {
        #expect(AudioFormat(sniffing: Data("RIFF\0\0\0\0WAVEfmt ".utf8)) == .wav)
        #expect(AudioFormat(sniffing: Data("OggS\0\u{2}".utf8)) == .ogg)
        #expect(AudioFormat(sniffing: Data([0x1A, 0x45, 0xDF, 0xA3, 0x9F])) == .webm)
        #expect(AudioFormat(sniffing: Data([0, 0, 0, 0x20] + Array("ftypM4A ".utf8))) == .m4a)
        #expect(AudioFormat(sniffing: Data("ID3\u{4}".utf8)) == .mp3)
        #expect(AudioFormat(sniffing: Data("fLaC".utf8)) == .flac)
        #expect(AudioFormat(sniffing: Data("hello".utf8)) == nil)
        #expect(AudioFormat(mimeType: "audio/webm;codecs=opus") == .webm)
        #expect(AudioFormat(mimeType: "audio/ogg; codecs=opus") == .ogg)
        #expect(AudioFormat(mimeType: "audio/mp4") == .m4a)
        #expect(AudioFormat(mimeType: "text/plain") == nil)
    }
}
