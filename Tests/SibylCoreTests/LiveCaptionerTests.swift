import Foundation
import SibylCore
import Synchronization
import Testing

/// "Speech" whose words a transcriber can read back: each word is a 200 ms tone whose pitch says
/// which word it is (word k at 300 + 150·k Hz), so a test can tell whether every word said was
/// captioned once, in order, whichever line it fell in.
enum ToneWords {
    static let rate = 16_000

    static func word(_ k: Int) -> [Int16] {
        let frequency = 300.0 + 150.0 * Double(k)
        return (0..<(rate / 5)).map { Int16(9_000 * sin(2 * .pi * frequency * Double($0) / Double(rate))) }
    }

    static func quiet(_ milliseconds: Int) -> [Int16] { [Int16](repeating: 0, count: rate * milliseconds / 1000) }

    /// Words with 100 ms between them: one stretch of speech.
    static func sentence(_ words: ClosedRange<Int>) -> [Int16] {
        words.flatMap { word($0) + quiet(100) }
    }

    /// Reads the words back: each loud stretch's pitch, by its zero crossings.
    static func read(_ samples: [Int16]) -> [Int] {
        var words: [Int] = []
        var index = 0
        let frame = rate / 100
        while index + frame <= samples.count {
            guard samples[index..<(index + frame)].contains(where: { abs($0) > 2_000 }) else {
                index += frame
                continue
            }
            var end = index
            while end + frame <= samples.count, samples[end..<(end + frame)].contains(where: { abs($0) > 2_000 }) { end += frame }
            let tone = samples[index..<end]
            let crossings = zip(tone, tone.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count
            let frequency = Double(crossings) / 2 / (Double(tone.count) / Double(rate))
            // A tone cut by the edge of the recording is too short to read surely: left out.
            if tone.count >= rate / 10 { words.append(Int(((frequency - 300) / 150).rounded())) }
            index = end
        }
        return words
    }
}

/// Transcribes tone words as "w3 w4 w5." (every stretch a finished sentence), or without the
/// full stop (words that wait for more).
final class ToneTranscriber: Transcriber {
    let sentences: Bool

    init(sentences: Bool = true) { self.sentences = sentences }

    func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        let wav = try WAVAudio(parsing: audio.data)
        let bytes = [UInt8](wav.samples)
        let samples = stride(from: 0, to: bytes.count - 1, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
        let words = ToneWords.read(samples)
        return Transcription(text: words.isEmpty ? "" : words.map { "w\($0)" }.joined(separator: " ") + (sentences ? "." : ""), language: "en", duration: wav.duration)
    }
}

@Suite("Live captions: one line after another, nothing said lost between them", .timeLimit(.minutes(15)))
struct LiveCaptionerTests {
    static func captioner(longestLine: Duration = .seconds(8), partials: Duration? = .milliseconds(300), sentences: Bool = true) -> LiveCaptioner {
        LiveCaptioner {
            var configuration = VoiceActivityDetector.Configuration()
            configuration.onset = .milliseconds(64)
            configuration.hangover = .milliseconds(300)
            configuration.maximumSpeech = longestLine
            configuration.waitForSpeech = .seconds(30)
            let detector = VoiceActivityDetector(configuration: configuration)
            return SpokenQuestionListener(
                detector: detector, transcriber: ToneTranscriber(sentences: sentences), options: TranscriptionOptions(language: "en"),
                patience: sentences ? .milliseconds(300) : .seconds(2), partialInterval: partials
            )
        }
    }

    /// Feeds the samples in 20 ms pieces, as a microphone would (not in real time).
    static func feed(_ captioner: LiveCaptioner, _ samples: [Int16]) async {
        for start in stride(from: 0, to: samples.count, by: 320) {
            captioner.add(Array(samples[start..<min(samples.count, start + 320)]))
            // Let the transcriptions the listener started run, as they would between real pieces.
            await Task.yield()
        }
    }

    /// The lines and how many partial words came, once the captioner has finished.
    static func collect(_ captioner: LiveCaptioner) async -> (lines: [String], partials: Int) {
        var lines: [String] = []
        var partials = 0
        for await event in captioner.events {
            switch event {
            case .line(let line): lines.append(line)
            case .partial(let words): if !words.isEmpty { partials += 1 }
            case .trouble(let text): Issue.record("trouble: \(text)")
            }
        }
        return (lines, partials)
    }

    static func words(_ lines: [String]) -> [Int] {
        lines.flatMap { $0.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: CharacterSet(charactersIn: "w."))) } }
    }

    /// The words, a word heard twice in a row once: a word a cut fell in may be heard at the end
    /// of one line and the start of the next.
    static func wordsAcrossCuts(_ lines: [String]) -> [Int] {
        let heard = words(lines)
        return heard.enumerated().filter { $0.offset == 0 || heard[$0.offset - 1] != $0.element }.map(\.element)
    }

    @Test("Sentences with pauses between them are lines of their own, each word once")
    func sentencesAreLines() async throws {
        let captioner = Self.captioner()
        let events = Task { await Self.collect(captioner) }
        await Self.feed(captioner, ToneWords.quiet(500) + ToneWords.sentence(1...4) + ToneWords.quiet(1_500) + ToneWords.sentence(5...8) + ToneWords.quiet(1_500) + ToneWords.sentence(9...11) + ToneWords.quiet(1_500))
        await captioner.finish()
        let (lines, partials) = await events.value
        #expect(lines == ["w1 w2 w3 w4.", "w5 w6 w7 w8.", "w9 w10 w11."])
        #expect(partials > 0, "the words showed as they formed")
    }

    @Test("Speech that goes on past the longest line is cut into lines, and no word is lost at a cut")
    func longSpeechIsCut() async throws {
        let captioner = Self.captioner(longestLine: .milliseconds(1_500))
        let events = Task { await Self.collect(captioner) }
        await Self.feed(captioner, ToneWords.quiet(500) + ToneWords.sentence(1...14) + ToneWords.quiet(1_500))
        await captioner.finish()
        let (lines, _) = await events.value
        #expect(lines.count >= 2, "\(lines)")
        #expect(Self.wordsAcrossCuts(lines) == Array(1...14), "\(lines)")
    }

    @Test("Talk whose words never end a sentence, with short pauses, is cut at the longest line counted from its first word")
    func longestLineSpansPauses() async throws {
        let captioner = Self.captioner(longestLine: .milliseconds(2_000), sentences: false)
        let events = Task { await Self.collect(captioner) }
        // Three words, a pause shorter than the patience, three more…: the detector's own count
        // of the longest speech starts again after each pause.
        var talk = ToneWords.quiet(500)
        for group in stride(from: 1, through: 16, by: 3) { talk += ToneWords.sentence(group...(group + 2)) + ToneWords.quiet(500) }
        await Self.feed(captioner, talk + ToneWords.quiet(3_000))
        await captioner.finish()
        let (lines, _) = await events.value
        #expect(lines.count >= 3, "\(lines)")
        #expect(Self.wordsAcrossCuts(lines) == Array(1...18), "\(lines)")
    }

    @Test("A pause ends the line under way and drops what is said until resumed")
    func pauseDropsAudio() async throws {
        let captioner = Self.captioner()
        let events = Task { await Self.collect(captioner) }
        await Self.feed(captioner, ToneWords.quiet(500) + ToneWords.sentence(1...3))
        captioner.pause()
        await Self.feed(captioner, ToneWords.quiet(300) + ToneWords.sentence(4...6) + ToneWords.quiet(1_000))
        captioner.resume()
        await Self.feed(captioner, ToneWords.quiet(500) + ToneWords.sentence(7...9) + ToneWords.quiet(1_500))
        await captioner.finish()
        let (lines, _) = await events.value
        #expect(Self.words(lines) == [1, 2, 3, 7, 8, 9], "\(lines)")
    }

    @Test("Bracketed sound tags are not captions")
    func cleaned() {
        #expect(LiveCaptioner.cleaned(" [BLANK_AUDIO] ") == "")
        #expect(LiveCaptioner.cleaned("(music) Hello\n there ") == "Hello there")
    }
}
