import ArgumentParser
import Assistant
import Foundation
import LocalEngines
import SibylApp
import SibylCore
import TestFixtures

/// `SibylBenchmarks voice`: speech-to-text on real recordings, today's pipeline (a whisper-cli
/// process per question, the language detected) against the engines Sibyl now keeps loaded
/// (Moonshine for English, Whisper in whisper-server), with the word error rate of each on the
/// same recordings, the chat model's first token, and the memory the resident engines hold.
struct VoiceBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "voice",
        abstract: "Speech-to-text on real recordings: per-engine latency (median, p90) and WER against today's whisper-cli pipeline, the first answer token, and the resident engines' memory."
    )

    @Option(help: "Times each recording is transcribed by each engine, after one warm-up.") var rounds = 1
    @Option(help: "Threads per engine (default: all cores up to 8).") var threads = WhisperTranscriber.defaultThreads
    @Flag(help: "Leave out the chat model's first token (and the end-of-speech figures).") var noChat = false
    @Flag(help: "Only where each detector hears the end of speech (no transcription, no chat).") var endpointingOnly = false

    struct Engine {
        var name: String
        var transcriber: any Transcriber
        var options: TranscriptionOptions
    }

    struct Result {
        var engine: String
        var milliseconds: [Double] = []
        var errors: [String: WordErrorRate] = [:]
        var narrowband = WordErrorRate(errors: 0, referenceWords: 0)

        var median: Double { Statistics.median(milliseconds) }
        var p90: Double { Statistics.percentile(90, of: milliseconds) }
        var all: WordErrorRate { errors.values.reduce(WordErrorRate(errors: 0, referenceWords: 0), +) }
    }

    func run() async throws {
        let layout = EngineLayout()
        let recordings = try VoiceRecordings.load(engines: layout.root).all
        let seconds = recordings.map(\.seconds)
        say(String(format: "%d real recordings (%@), %.1f–%.1f s, median %.1f s; %d threads on %d cores",
                   recordings.count, Dictionary(grouping: recordings, by: \.set).map { "\($0.value.count) \($0.key)" }.sorted().joined(separator: ", "),
                   seconds.min() ?? 0, seconds.max() ?? 0, Statistics.median(seconds), threads, ProcessInfo.processInfo.activeProcessorCount))
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-voice-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let moonshine = MoonshineTranscriber(layout: layout, threads: threads)
        if endpointingOnly {
            try await moonshine.start()
            _ = try await endOfSpeech(recordings, layout: layout, moonshine: moonshine)
            return
        }
        let cli = WhisperTranscriber(layout: layout, threads: threads)
        let server = WhisperServerTranscriber(configuration: .init(layout: layout, logFile: logs.appendingPathComponent("whisper-server.log"), threads: threads))
        let english = TranscriptionOptions(language: "en")
        let engines = [
            Engine(name: "today: whisper-cli per question, language detected", transcriber: cli, options: TranscriptionOptions()),
            Engine(name: "whisper-cli per question, --language en", transcriber: cli, options: english),
            Engine(name: "whisper-server, kept loaded, en", transcriber: server, options: english),
            Engine(name: "Moonshine base, kept loaded, en", transcriber: moonshine, options: english),
        ]
        var results: [Result] = []
        for engine in engines {
            say("\(engine.name)…")
            results.append(try await measure(engine, on: recordings))
        }
        report(results)
        var memory = [("this process (Moonshine loaded)", ProcessTable.kilobytes("VmRSS", of: getpid())), ("whisper-server", await server.processID.flatMap { ProcessTable.kilobytes("VmRSS", of: $0) })]
        var ttft: Double?
        if !noChat {
            let (median, chatMemory) = try await firstToken(recordings.filter { $0.set == "clean" })
            ttft = median
            memory.append(("llama-server (chat model)", chatMemory))
        }
        say("memory of the resident engines (RSS):")
        var total = 0
        for case let (name, kilobytes?) in memory {
            total += kilobytes
            say(String(format: "  %-34@ %7.0f MB", name as NSString, Double(kilobytes) / 1024))
        }
        say(String(format: "  %-34@ %7.0f MB (goal < 3,500 MB)", "together" as NSString, Double(total) / 1024))
        let (energy, live) = try await endOfSpeech(recordings, layout: layout, moonshine: moonshine)
        if let ttft {
            let today = energy + results[0].median + ttft
            let now = live + ttft
            say("from the end of speech to the first answer token:")
            say(String(format: "  today %.0f ms (end heard %.0f + whisper-cli %.0f + first token %.0f); now %.0f ms (question heard and transcribed %.0f + first token %.0f): %.1f× sooner",
                       today, energy, results[0].median, ttft, now, live, ttft, today / now))
        }
        await server.stop()
    }

    /// Where the end of speech is heard: by each detector alone, and by the terminal's listener in a
    /// real-time replay. The medians (ms after the last word) of the energy detector and of the listener.
    func endOfSpeech(_ recordings: [VoiceRecordings.Recording], layout: EngineLayout, moonshine: MoonshineTranscriber) async throws -> (energy: Double, live: Double) {
        let silero = { try SileroVoiceDetector(layout: layout).stream() as any SpeechClassifier }
        let energy = try endpointing(recordings, classifier: nil, hangover: VoiceDetectorKind.energy.defaultHangoverMilliseconds)
        _ = try endpointing(recordings, classifier: silero, hangover: VoiceDetectorKind.silero.defaultHangoverMilliseconds)
        return (energy, try await liveQuestions(recordings, transcriber: moonshine, classifier: silero))
    }

    /// How soon after the last word a detector decides the question is over (median, ms); it prints
    /// how many questions it cut short (taking a pause for the end).
    func endpointing(_ recordings: [VoiceRecordings.Recording], classifier: (() throws -> any SpeechClassifier)?, hangover: Int) throws -> Double {
        let rate = AudioResampling.speechSampleRate
        var delays: [Double] = []
        var cut = 0
        for recording in recordings {
            let lead = rate / 2
            let samples = [Int16](repeating: 0, count: lead) + AudioResampling.pcm16(recording.samples) + [Int16](repeating: 0, count: rate * 2)
            var configuration = VoiceActivityDetector.Configuration()
            configuration.hangover = .milliseconds(hangover)
            var detector = VoiceActivityDetector(configuration: configuration, classifier: try classifier?())
            var fed = 0
            // 20 ms chunks, as a microphone delivers them.
            chunks: for start in stride(from: 0, to: samples.count, by: rate / 50) {
                let chunk = samples[start..<min(samples.count, start + rate / 50)]
                fed += chunk.count
                for event in detector.process(chunk) {
                    guard case .speechEnded(let end) = event else { continue }
                    delays.append(Double(fed - (lead + recording.speechEnd)) * 1000 / Double(rate))
                    // Ended more than 300 ms before the last word: a pause was taken for the end.
                    if end < lead + recording.speechEnd - rate * 3 / 10 {
                        cut += 1
                        say("  cut short: \(recording.id) ended at \(String(format: "%.2f", Double(end - lead) / Double(rate))) s of \(String(format: "%.2f", Double(recording.speechEnd) / Double(rate))) s")
                    }
                    break chunks
                }
            }
        }
        say(String(format: "end of speech heard by the %@ detector (hang-over %d ms): median %.0f ms after the last word, p90 %.0f; %d of %d questions cut short",
                   classifier == nil ? "energy" : "Silero", hangover, Statistics.median(delays), Statistics.percentile(90, of: delays), cut, recordings.count))
        return Statistics.median(delays)
    }

    /// Each recording played in real time, in 20 ms chunks, into the listener the terminal uses
    /// (Silero with the default hang-over, then Moonshine at each end it hears, waiting longer when
    /// the words stop mid-sentence): the median time from the last word to the question's
    /// transcript, how many questions were cut short, and their WER.
    func liveQuestions(_ recordings: [VoiceRecordings.Recording], transcriber: any Transcriber, classifier: @escaping () throws -> any SpeechClassifier) async throws -> Double {
        let rate = AudioResampling.speechSampleRate
        let chunk = rate / 50
        var delays: [Double] = []
        var cut: [String] = []
        var total = WordErrorRate(errors: 0, referenceWords: 0)
        let clock = ContinuousClock()
        for recording in recordings {
            let lead = rate / 2
            let samples = [Int16](repeating: 0, count: lead) + AudioResampling.pcm16(recording.samples) + [Int16](repeating: 0, count: rate * 3)
            var configuration = VoiceActivityDetector.Configuration()
            configuration.hangover = .milliseconds(VoiceDetectorKind.silero.defaultHangoverMilliseconds)
            let listener = SpokenQuestionListener(
                detector: VoiceActivityDetector(configuration: configuration, classifier: try classifier()), transcriber: transcriber, options: TranscriptionOptions(language: "en")
            )
            let started = clock.now
            let lastWord = started + .milliseconds((lead + recording.speechEnd) * 1000 / rate)
            let playing = Task {
                for (index, start) in stride(from: 0, to: samples.count, by: chunk).enumerated() {
                    // The microphone delivers each chunk when it has been spoken.
                    try await Task.sleep(until: started + .milliseconds((index + 1) * 20), clock: .continuous)
                    await listener.add(Array(samples[start..<min(samples.count, start + chunk)]))
                    if await listener.isDone { return }
                }
                await listener.stop()
            }
            let outcome = try await listener.result()
            let ready = clock.now
            playing.cancel()
            guard case .heard(let transcription, _) = outcome else {
                cut.append(recording.id + " (nothing heard)")
                continue
            }
            let wer = WordErrorRate(reference: recording.transcript, hypothesis: transcription.text)
            total = total + wer
            // Heard before the last word was spoken: a pause was taken for the end.
            guard ready > lastWord else {
                cut.append("\(recording.id): \(transcription.text)")
                continue
            }
            delays.append(Statistics.milliseconds(ready - lastWord))
            say(String(format: "  %@: ready %.0f ms after the last word — %@", recording.id, Statistics.milliseconds(ready - lastWord), transcription.text))
        }
        say(String(format: "a question played in real time into the terminal's listener (Silero, %d ms hang-over, Moonshine at each end, up to 1.2 s for words that stop mid-sentence): transcript ready %.0f ms after the last word (median of the questions heard whole; p90 %.0f), %d of %d cut short, WER %.1f %%",
                   VoiceDetectorKind.silero.defaultHangoverMilliseconds, Statistics.median(delays), Statistics.percentile(90, of: delays), cut.count, recordings.count, total.rate * 100))
        for line in cut { say("  cut short: \(line)") }
        return Statistics.median(delays)
    }

    /// Each recording through one engine, `rounds` times after a warm-up; WER from the first round.
    func measure(_ engine: Engine, on recordings: [VoiceRecordings.Recording]) async throws -> Result {
        var result = Result(engine: engine.name)
        _ = try await engine.transcriber.transcribe(recordings[0].wav(), options: engine.options)
        let clock = ContinuousClock()
        for recording in recordings {
            for round in 0..<rounds {
                var heard: Transcription?
                let elapsed = try await clock.measure { heard = try await engine.transcriber.transcribe(recording.wav(), options: engine.options) }
                result.milliseconds.append(Statistics.milliseconds(elapsed))
                guard round == 0, let heard else { continue }
                let wer = WordErrorRate(reference: recording.transcript, hypothesis: heard.text)
                result.errors[recording.set, default: WordErrorRate(errors: 0, referenceWords: 0)] = result.errors[recording.set, default: WordErrorRate(errors: 0, referenceWords: 0)] + wer
                if wer.errors > 0 { say("  \(recording.id): \(wer) — \(heard.text)") }
            }
            let narrow = try await engine.transcriber.transcribe(recording.wav(recording.narrowband), options: engine.options)
            result.narrowband = result.narrowband + WordErrorRate(reference: recording.transcript, hypothesis: narrow.text)
        }
        return result
    }

    func report(_ results: [Result]) {
        let today = results[0].median
        say("speech-to-text per recording (ms; WER on the same recordings: clean · with a pause · in noise · all · as the Monocle hears it, 8 kHz 8-bit):")
        for result in results {
            func rate(_ set: String) -> String { String(format: "%4.1f %%", (result.errors[set]?.rate ?? 0) * 100) }
            say(String(format: "  %-52@ median %6.0f  p90 %6.0f  %5.1f× | WER %@ · %@ · %@ · %@ · %@",
                       result.engine as NSString, result.median, result.p90, today / max(result.median, 0.001),
                       rate("clean"), rate("pause"), rate("noise"), String(format: "%4.1f %%", result.all.rate * 100), String(format: "%4.1f %%", result.narrowband.rate * 100)))
        }
    }

    /// The median time from asking (the transcript as the question) to the first answer token,
    /// through Sibyl's whole answer path on the local chat model; and the chat server's memory (kB).
    func firstToken(_ recordings: [VoiceRecordings.Recording]) async throws -> (Double, Int?) {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-voice-home-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = try SibylRuntime(environment: [
            "SIBYL_HOME": home.path, "SIBYL_ENGINES": EngineLayout().root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin",
            "SIBYL_CHAT_TEMPERATURE": "0", "SIBYL_CHAT_MAX_TOKENS": "24", "SIBYL_TITLES": "none",
        ])
        var times: [Double] = []
        let clock = ContinuousClock()
        for (index, recording) in ([recordings[0]] + recordings).enumerated() {
            let started = clock.now
            let asked = try await runtime.conversations.ask(AskRequest(recording.transcript, conversation: .new(NewConversation(source: .cli))))
            guard case .answering(let turn) = asked.outcome else { throw BenchmarkFailure(message: "the question was declined") }
            for await event in turn.events() {
                if case .delta = event {
                    if index > 0 { times.append(Statistics.milliseconds(clock.now - started)) }
                    break
                }
            }
            turn.cancel()
        }
        let pid = ProcessTable.children(of: getpid()).first { ProcessTable.commandLine(of: $0).first.map { URL(fileURLWithPath: $0).lastPathComponent } == "llama-server" }
        say(String(format: "first answer token through Sibyl's answer path (local chat model): median %.0f ms, p90 %.0f ms over %d questions",
                   Statistics.median(times), Statistics.percentile(90, of: times), times.count))
        // Measured before the runtime stops its chat server.
        let memory = pid.flatMap { ProcessTable.kilobytes("VmRSS", of: $0) }
        await runtime.shutdown()
        return (Statistics.median(times), memory)
    }
}
