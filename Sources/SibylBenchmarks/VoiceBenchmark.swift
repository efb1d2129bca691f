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
    @Flag(help: "Leave out the questions asked through the virtual Monocle and Frame.") var noGlasses = false
    @Flag(help: "Only the questions asked through the virtual Monocle and Frame.") var glassesOnly = false
    @Flag(help: "Only the answer path: first token and first audio from the question's transcript.") var answersOnly = false

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
        let recordings = try await VoiceRecordings.load(engines: layout.root).all
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
        // The glasses record up to six seconds.
        let glassesRecordings = recordings.filter { $0.seconds <= 5.5 }
        if answersOnly {
            _ = try await answerTimes(recordings.filter { $0.set == "clean" })
            return
        }
        if glassesOnly {
            _ = try await glassesQuestions(glassesRecordings, layout: layout)
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
        var memory = [("whisper-server", await server.processID.flatMap { ProcessTable.kilobytes("VmRSS", of: $0) })]
        var answers: AnswerTimes?
        if !noChat {
            let times = try await answerTimes(recordings.filter { $0.set == "clean" })
            answers = times
            memory.append(("llama-server (chat model)", times.chatMemory))
        }
        // Moonshine, Silero and (after the answers) Piper's voice live in this process.
        memory.insert(("this process (Moonshine, Silero, Piper)", ProcessTable.kilobytes("VmRSS", of: getpid())), at: 0)
        say("memory of the resident engines (RSS):")
        var total = 0
        for case let (name, kilobytes?) in memory {
            total += kilobytes
            say(String(format: "  %-34@ %7.0f MB", name as NSString, Double(kilobytes) / 1024))
        }
        say(String(format: "  %-34@ %7.0f MB (goal < 3,500 MB)", "together" as NSString, Double(total) / 1024))
        let (energy, live) = try await endOfSpeech(recordings, layout: layout, moonshine: moonshine)
        if let answers {
            let today = energy + results[0].median + answers.firstToken
            let now = live + answers.firstToken
            say("from the end of speech to the first answer token (goal ≤ 1,000 ms):")
            say(String(format: "  today %.0f ms (end heard %.0f + whisper-cli %.0f + first token %.0f); now %.0f ms (question heard and transcribed %.0f + first token %.0f): %.1f× sooner",
                       today, energy, results[0].median, answers.firstToken, now, live, answers.firstToken, today / now))
            let todayAudio = energy + results[0].median + answers.todayFirstAudio
            let nowAudio = live + answers.firstAudio
            say("from the end of speech to the first answer audio (goal ≤ 1,500 ms):")
            say(String(format: "  today %.0f ms (end heard %.0f + whisper-cli %.0f + whole answer written and spoken by espeak-ng %.0f); now %.0f ms (question heard and transcribed %.0f + first sentence written and spoken by Piper %.0f): %.1f× sooner",
                       todayAudio, energy, results[0].median, answers.todayFirstAudio, nowAudio, live, answers.firstAudio, todayAudio / nowAudio))
        }
        try await otherLanguages(layout: layout, whisper: server, firstToken: answers?.firstToken)
        await server.stop()
        if !noGlasses, !noChat {
            let glasses = try await glassesQuestions(glassesRecordings, layout: layout)
            say("from the end of speech to the first answer words on the glasses (goal ≤ 1,000 ms):")
            for figure in glasses {
                let now = Statistics.median(figure.firstWords)
                let today = energy + results[0].median + (answers?.firstToken ?? 0)
                say(String(format: "  %@: now %.0f ms; today about %.0f ms (the terminal's figure: end heard by loudness, whisper-cli, first token; the glasses waited for a tap or their six seconds besides): %.1f× sooner",
                           figure.kind as NSString, now, today, today / now))
            }
        }
    }

    /// Where the end of speech is heard: by each detector alone, and by the terminal's listener in a
    /// real-time replay. The medians (ms after the last word) of the energy detector and of the listener.
    func endOfSpeech(_ recordings: [VoiceRecordings.Recording], layout: EngineLayout, moonshine: MoonshineTranscriber) async throws -> (energy: Double, live: Double) {
        let silero = { try SileroVoiceDetector(layout: layout).stream() as any SpeechClassifier }
        let energy = try endpointing(recordings, classifier: nil, hangover: VoiceDetectorKind.energy.defaultHangoverMilliseconds)
        _ = try endpointing(recordings, classifier: silero, hangover: VoiceDetectorKind.silero.defaultHangoverMilliseconds)
        _ = try await liveQuestions(recordings, transcriber: moonshine, classifier: silero, partials: nil)
        return (energy, try await liveQuestions(recordings, transcriber: moonshine, classifier: silero, partials: SpokenQuestionListener.defaultPartialInterval))
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
    /// `partials`: how often a partial transcript is taken while the person speaks (the final one
    /// is read with the latest as its draft); nil: none, as before.
    func liveQuestions(
        _ recordings: [VoiceRecordings.Recording], transcriber: any Transcriber, classifier: @escaping () throws -> any SpeechClassifier, partials: Duration?,
        language: String = "en", engine: String = "Moonshine"
    ) async throws -> Double {
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
                detector: VoiceActivityDetector(configuration: configuration, classifier: try classifier()), transcriber: transcriber, options: TranscriptionOptions(language: language),
                partialInterval: partials
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
        let how = partials.map { "partial transcripts every \($0.milliseconds) ms while speaking, the last one the final's draft" } ?? "no partial transcripts"
        say(String(format: "a question played in real time into the terminal's listener (Silero, %d ms hang-over, %@ at each end, up to 1.2 s for words that stop mid-sentence; %@): transcript ready %.0f ms after the last word (median of the questions heard whole; p90 %.0f), %d of %d cut short, WER %.1f %%",
                   VoiceDetectorKind.silero.defaultHangoverMilliseconds, engine as NSString, how as NSString, Statistics.median(delays), Statistics.percentile(90, of: delays), cut.count, recordings.count, total.rate * 100))
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

    /// From asking (the transcript as the question) through Sibyl's whole answer path on the local
    /// chat model: medians of the first answer token, the first sentence spoken (Piper, sentence by
    /// sentence, as the answer is written), and today's first audio (the whole answer written, then
    /// spoken whole by espeak-ng); and the chat server's memory (kB).
    struct AnswerTimes {
        var firstToken: Double
        var firstAudio: Double
        var todayFirstAudio: Double
        var chatMemory: Int?
    }

    func answerTimes(_ recordings: [VoiceRecordings.Recording]) async throws -> AnswerTimes {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-voice-home-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = try SibylRuntime(environment: [
            "SIBYL_HOME": home.path, "SIBYL_ENGINES": EngineLayout().root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin",
            "SIBYL_CHAT_TEMPERATURE": "0", "SIBYL_CHAT_MAX_TOKENS": "60", "SIBYL_TITLES": "none",
        ])
        await runtime.voice.warmUp()
        var firstTokens: [Double] = [], firstAudio: [Double] = [], todays: [Double] = [], sentenceSeconds: [Double] = [], firstWritten: [Double] = []
        let clock = ContinuousClock()
        let espeak = EspeakSynthesizer()
        for (index, recording) in ([recordings[0]] + recordings).enumerated() {
            let started = clock.now
            let asked = try await runtime.conversations.ask(AskRequest(recording.transcript, conversation: .new(NewConversation(source: .cli))))
            guard case .answering(let turn) = asked.outcome else { throw BenchmarkFailure(message: "the question was declined") }
            // When the first token came, and when the first piece was whole (the voice's own split).
            let tokenTask = Task { () -> (token: Duration, written: Duration?)? in
                var token: Duration?
                var splitter = SentenceSplitter(firstClauseWords: SibylRuntime.Voice.firstPhraseWords)
                for await event in turn.events() {
                    guard case .delta(let text) = event else { continue }
                    if token == nil { token = clock.now - started }
                    if !splitter.append(text).isEmpty, let token { return (token, clock.now - started) }
                }
                return token.map { ($0, nil) }
            }
            var heard: Duration?
            for try await sentence in runtime.voice.speakAsWritten(turn) {
                heard = clock.now - started
                let seconds = (try? WAVAudio(parsing: sentence.audio.data))?.duration ?? 0
                sentenceSeconds.append(seconds)
                if index > 0 { say(String(format: "  first piece spoken after %.0f ms (%.1f s of speech): %@", Statistics.milliseconds(clock.now - started), seconds, sentence.text)) }
                break
            }
            await turn.waitUntilEnded()
            let written = clock.now - started
            let times = await tokenTask.value
            guard case .finished(let message) = turn.outcome, let token = times?.token, let heard else {
                throw BenchmarkFailure(message: "the answer to \"\(recording.transcript)\" did not finish")
            }
            let speaking = clock.now
            _ = try await espeak.synthesize(GlassesText.plain(message.text), options: SpeechOptions(format: .wav))
            guard index > 0 else { continue }
            firstTokens.append(Statistics.milliseconds(token))
            if let written = times?.written { firstWritten.append(Statistics.milliseconds(written)) }
            firstAudio.append(Statistics.milliseconds(heard))
            todays.append(Statistics.milliseconds(written + (clock.now - speaking)))
        }
        let pid = ProcessTable.children(of: getpid()).first { ProcessTable.commandLine(of: $0).first.map { URL(fileURLWithPath: $0).lastPathComponent } == "llama-server" }
        say(String(format: "through Sibyl's answer path (local chat model), over %d questions:", firstTokens.count))
        say(String(format: "  first answer token: median %.0f ms, p90 %.0f ms", Statistics.median(firstTokens), Statistics.percentile(90, of: firstTokens)))
        say(String(format: "  first piece written whole: median %.0f ms, p90 %.0f ms", Statistics.median(firstWritten), Statistics.percentile(90, of: firstWritten)))
        say(String(format: "  first sentence spoken (Piper joe, sentence by sentence): median %.0f ms, p90 %.0f ms (first sentences %.1f s of speech, median)",
                   Statistics.median(firstAudio), Statistics.percentile(90, of: firstAudio), Statistics.median(sentenceSeconds)))
        say(String(format: "  today: the whole answer written, then spoken whole by espeak-ng: median %.0f ms, p90 %.0f ms",
                   Statistics.median(todays), Statistics.percentile(90, of: todays)))
        // Measured before the runtime stops its chat server.
        let memory = pid.flatMap { ProcessTable.kilobytes("VmRSS", of: $0) }
        await runtime.shutdown()
        return AnswerTimes(firstToken: Statistics.median(firstTokens), firstAudio: Statistics.median(firstAudio), todayFirstAudio: Statistics.median(todays), chatMemory: memory)
    }
}
