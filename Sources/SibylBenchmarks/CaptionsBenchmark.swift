import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import Glasses
import LocalEngines
import MonocleEmulator
import SibylApp
import SibylCore

/// `sibyl-bench captions`: how long after a word is spoken live captions show it on the glasses.
///
/// The manifest's real recordings, cut to their words and joined with a pause between them (a
/// talk of about a minute), play at their real pace into a virtual Monocle and a virtual Frame
/// running live captions on the local engines. Each word's moment is whisper-cli's own word
/// timestamp on the talk; it counts as shown when Sibyl first sends the glasses captions that hold
/// it, in order, for good (an alignment with the words so far that later captions keep). The
/// reference in the same run is whisper-cli transcribing each utterance whole once it has been
/// said (the end of the utterance known exactly, as no real pipeline knows it): its delay is the
/// rest of the utterance after the word plus whisper-cli's time on it.
struct CaptionsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "captions",
        abstract: "Live captions: the delay from a word spoken to it shown on the virtual Monocle and Frame (median, p90), on real recordings at their real pace, against whisper-cli on each whole utterance."
    )

    @Option(help: "Milliseconds of quiet between the recordings in the talk.") var gap = 700
    @Option(help: "Threads for whisper-cli (the reference and the word timestamps).") var threads = WhisperTranscriber.defaultThreads
    @Flag(help: "Print the talk's words and what each glasses captioned.") var verbose = false
    @Option(help: "Which virtual glasses: monocle, frame, or both (default).") var kind: String?

    /// A word of the talk and when it ends, in seconds from the talk's start.
    struct Word {
        var text: String
        var end: Double
        var utterance: Int
    }

    func run() async throws {
        let layout = EngineLayout()
        let recordings = try await VoiceRecordings.load(engines: layout.root).all.filter { $0.set == "clean" }.map(\.words)
        let rate = AudioResampling.speechSampleRate
        var talk = [Int16](repeating: 0, count: rate)
        var utterances: [(start: Int, end: Int)] = []
        for recording in recordings {
            let samples = AudioResampling.pcm16(recording.samples)
            utterances.append((talk.count, talk.count + samples.count))
            talk += samples + [Int16](repeating: 0, count: rate * gap / 1000)
        }
        talk += [Int16](repeating: 0, count: rate * 3)
        let seconds = Double(talk.count) / Double(rate)
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-captions-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let wav = AudioResampling.wav(pcm16: talk, sampleRate: rate).encoded()
        let talkFile = work.appendingPathComponent("talk.wav")
        try wav.write(to: talkFile)
        say(String(format: "a talk of %.1f s: %d real recordings cut to their words, %d ms apart; %d threads on %d cores",
                   seconds, recordings.count, gap, threads, ProcessInfo.processInfo.activeProcessorCount))

        let words = try wordTimes(talkFile, utterances: utterances, layout: layout, work: work)
        say("\(words.count) words, timed by whisper-cli's own word timestamps on the talk")
        if verbose { say("  " + words.map(\.text).joined(separator: " ")) }

        // The reference: each utterance transcribed whole by whisper-cli (Sibyl's whisper-cli
        // pipeline, as `voice` measures it) once it has been said.
        let whisper = WhisperTranscriber(layout: layout, threads: threads)
        var reference: [Double] = []
        for (index, utterance) in utterances.enumerated() {
            let audio = AudioFile(data: AudioResampling.wav(pcm16: Array(talk[utterance.start..<utterance.end]), sampleRate: rate).encoded(), format: .wav)
            let started = ContinuousClock.now
            _ = try await whisper.transcribe(audio, options: TranscriptionOptions(language: "en"))
            let took = Statistics.milliseconds(ContinuousClock.now - started) / 1000
            let end = Double(utterance.end) / Double(rate)
            for word in words where word.utterance == index { reference.append((end - word.end + took) * 1000) }
        }

        let runtime = try SibylRuntime(environment: [
            "SIBYL_HOME": work.appendingPathComponent("home").path, "SIBYL_ENGINES": layout.root.path,
            "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin", "SIBYL_TITLES": "none",
        ])
        await runtime.voice.warmUp()
        var figures: [(kind: String, delays: [Double], missed: Int)] = []
        do {
            for kind in [GlassesKind.monocle, .frame] where self.kind == nil || self.kind == kind.rawValue {
                let shown = try await captions(kind, talk: wav, samples: talk, seconds: seconds, runtime: runtime, layout: layout, work: work)
                let (delays, missed) = Self.delays(words: words, shown: shown)
                figures.append((kind.displayName, delays, missed))
                if verbose {
                    say("  \(kind.displayName) captioned: \((shown.last?.words ?? []).joined(separator: " "))")
                }
            }
        } catch {
            await runtime.shutdown()
            throw error
        }
        await runtime.shutdown()

        say("the delay from a word spoken to the glasses' captions holding it (ms):")
        let referenceMedian = Statistics.median(reference)
        say(String(format: "  reference, whisper-cli on each whole utterance once said: median %.0f, p90 %.0f", referenceMedian, Statistics.percentile(90, of: reference)))
        for figure in figures {
            let median = Statistics.median(figure.delays)
            say(String(format: "  Sibyl's live captions on the virtual %@: median %.0f, p90 %.0f (%.2f× the reference's median); %d of %d words never shown",
                       figure.kind as NSString, median, Statistics.percentile(90, of: figure.delays), median / max(1, referenceMedian), figure.missed, words.count))
        }
    }

    // MARK: The talk's words

    /// Each word's end, by whisper-cli's word timestamps (one word per segment).
    func wordTimes(_ talk: URL, utterances: [(start: Int, end: Int)], layout: EngineLayout, work: URL) throws -> [Word] {
        let output = work.appendingPathComponent("words")
        try runWhisper(["-f", talk.path, "-l", "en", "-ml", "1", "-sow", "-oj", "-of", output.path, "-np"], layout: layout)
        struct Transcript: Decodable {
            struct Segment: Decodable {
                struct Offsets: Decodable { var from: Int; var to: Int }
                var offsets: Offsets
                var text: String
            }
            var transcription: [Segment]
        }
        let transcript = try JSONDecoder().decode(Transcript.self, from: Data(contentsOf: output.appendingPathExtension("json")))
        let rate = Double(AudioResampling.speechSampleRate)
        var words: [Word] = []
        for segment in transcript.transcription {
            let end = Double(segment.offsets.to) / 1000
            // The utterance the word ends in (or the nearest before it).
            let utterance = utterances.lastIndex { Double($0.start) / rate <= end } ?? 0
            for word in Self.normalised(segment.text) { words.append(Word(text: word, end: end, utterance: utterance)) }
        }
        return words
    }

    /// Runs whisper-cli itself (for options Sibyl's transcriber does not pass: word timestamps).
    func runWhisper(_ arguments: [String], layout: EngineLayout) throws {
        let process = Process()
        process.executableURL = layout.whisperCLI
        process.arguments = ["-m", layout.whisperModel.path, "-t", String(threads)] + arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchmarkFailure(message: "whisper-cli failed (\(process.terminationStatus))") }
    }

    /// Words as compared: lower case, letters and digits only ("ill-disposed" is two words).
    static func normalised(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber }.map(String.init)
    }

    // MARK: Sibyl's captions

    /// What Sibyl sent the glasses, and when (seconds from the moment the talk began to play).
    typealias Shown = [(at: Double, words: [String])]

    func captions(_ kind: GlassesKind, talk: Data, samples: [Int16], seconds: Double, runtime: SibylRuntime, layout: EngineLayout, work: URL) async throws -> Shown {
        let state = CaptionLog()
        let options = CaptionOptions(language: "en")
        var session = GlassesSessionOptions()
        session.connection.reconnect = false
        switch kind {
        case .monocle:
            try await MonocleBenchmark.withGlasses(interpreter: MicroPythonInterpreter(module: layout.microPythonModule), writeLength: 253, realTimeMicrophone: true, continuousMicrophone: true) { glasses in
                let captions = try runtime.glasses.captions(transport: EmulatorTransport(emulator: glasses), kind: .monocle, options: options, session: session)
                let serving = Task { await captions.run { state.record($0) } }
                _ = try await glasses.waitForScreen(timeout: .seconds(300)) { $0.lines.contains { $0.hasPrefix("Captions") } }
                state.start()
                try await glasses.speak(wav: talk)
                try await Task.sleep(for: .seconds(seconds + 4))
                await captions.stop()
                serving.cancel()
            }
        case .frame:
            let emulator = try FrameEmulator(flash: work.appendingPathComponent("frame-flash"))
            try await emulator.powerOn()
            let captions = try runtime.glasses.captions(transport: EmulatorFrameTransport(emulator: emulator), kind: .frame, options: options, session: session)
            let serving = Task { await captions.run { state.record($0) } }
            let ready = ContinuousClock.now + .seconds(300)
            while !(emulator.display.current?.texts ?? []).joined().contains("Captions") {
                guard ContinuousClock.now < ready else { throw BenchmarkFailure(message: "the virtual Frame did not start captions") }
                try await Task.sleep(for: .milliseconds(20))
            }
            state.start()
            emulator.setMicrophoneInput(samples: samples, sampleRate: AudioResampling.speechSampleRate, fromNow: true)
            try await Task.sleep(for: .seconds(seconds + 4))
            await captions.stop()
            serving.cancel()
            await emulator.powerOff()
        }
        return state.shown
    }

    /// Each word's delay (ms) from its end to the first captions that hold it for good; and how
    /// many were never shown.
    static func delays(words: [Word], shown: Shown) -> (delays: [Double], missed: Int) {
        let reference = words.map(\.text)
        // Walked from the last captions back: a word is shown for good from the earliest
        // captions after which every alignment keeps it.
        var since = [Double?](repeating: nil, count: words.count)
        var kept = [Bool](repeating: true, count: words.count)
        for captions in shown.reversed() {
            let matched = alignment(reference, captions.words)
            for index in words.indices {
                if matched[index] && kept[index] { since[index] = captions.at } else { kept[index] = false }
            }
        }
        var delays: [Double] = []
        var missed = 0
        for (index, word) in words.enumerated() {
            guard let at = since[index] else {
                missed += 1
                continue
            }
            delays.append((at - word.end) * 1000)
        }
        return (delays, missed)
    }

    /// Which reference words a longest common subsequence with `shown` matches.
    static func alignment(_ reference: [String], _ shown: [String]) -> [Bool] {
        let rows = reference.count, columns = shown.count
        var table = [[Int]](repeating: [Int](repeating: 0, count: columns + 1), count: rows + 1)
        for i in stride(from: rows - 1, through: 0, by: -1) {
            for j in stride(from: columns - 1, through: 0, by: -1) {
                table[i][j] = reference[i] == shown[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var matched = [Bool](repeating: false, count: rows)
        var i = 0, j = 0
        while i < rows && j < columns {
            if reference[i] == shown[j] {
                matched[i] = true
                i += 1
                j += 1
            } else if table[i + 1][j] >= table[i][j + 1] {
                i += 1
            } else {
                j += 1
            }
        }
        return matched
    }
}

/// The captions as Sibyl sent them, timed from the start of the talk.
final class CaptionLog: @unchecked Sendable {
    private let lock = NSLock()
    private var started: ContinuousClock.Instant?
    private var lines: [String] = []
    private var forming: [String] = []
    private var log: CaptionsBenchmark.Shown = []

    func start() {
        lock.withLock { started = .now }
    }

    func record(_ event: GlassesCaptions.Event) {
        lock.withLock {
            guard let started else { return }
            switch event {
            case .partial(let words): forming = CaptionsBenchmark.normalised(words)
            case .line(let line, _):
                lines += CaptionsBenchmark.normalised(line)
                forming = []
            default: return
            }
            log.append((Statistics.milliseconds(ContinuousClock.now - started) / 1000, lines + forming))
        }
    }

    var shown: CaptionsBenchmark.Shown { lock.withLock { log } }
}
