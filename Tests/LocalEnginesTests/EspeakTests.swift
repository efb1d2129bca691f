import Foundation
import SibylCore
import Testing
@testable import LocalEngines

@Suite(.timeLimit(.minutes(10)), .enabled(if: EngineAvailability.runs("tts"), "espeak-ng is not installed (sibyl models install tts)"))
struct EspeakTests {
    let espeak = EspeakSynthesizer()

    @Test func speaksIntoAWAV() async throws {
        let audio = try await espeak.synthesize("Hello from Sibyl. This is the local voice.", options: SpeechOptions(format: .wav))
        let wav = try WAVAudio(parsing: audio.data)
        #expect(wav.sampleRate == 22_050)
        #expect(wav.channels == 1)
        #expect(wav.bitsPerSample == 16)
        #expect(wav.duration > 1.5 && wav.duration < 8)
        // Real speech, not silence: a fair share of samples well away from zero.
        let samples = wav.samples.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.filter { abs(Int($0)) > 1000 }.count > samples.count / 20)
    }

    @Test func speedChangesTheLengthAndOpenAIVoiceNamesFallBack() async throws {
        let text = "The quick brown fox jumps over the lazy dog."
        let normal = try WAVAudio(parsing: try await espeak.synthesize(text, options: SpeechOptions(voice: "alloy")).data)
        let fast = try WAVAudio(parsing: try await espeak.synthesize(text, options: SpeechOptions(speed: 2)).data)
        #expect(fast.duration < normal.duration * 0.75)
    }

    @Test func otherLanguagesAndBadRequests() async throws {
        let french = try await espeak.synthesize("Bonjour tout le monde.", options: SpeechOptions(voice: "fr"))
        #expect(try WAVAudio(parsing: french.data).duration > 0.5)
        await #expect(throws: SpeechError.self) { try await espeak.synthesize("hi", options: SpeechOptions(voice: "qqq")) }
        await #expect(throws: SpeechError.unsupportedFormat("mp3")) { try await espeak.synthesize("hi", options: SpeechOptions(format: .mp3)) }
        await #expect(throws: SpeechError.emptyText) { try await espeak.synthesize("   ", options: SpeechOptions()) }
        #expect(try await espeak.voices().contains { $0.language == "en-us" })
    }
}
