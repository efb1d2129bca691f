public import ArgumentParser
import Assistant
import Foundation
import LocalEngines
import SibylApp
import SibylCore

extension Microphone.Backend: ExpressibleByArgument {}

/// Options for asking by voice.
struct VoiceOptions: ParsableArguments {
    @Flag(help: "Ask by voice: record from the default microphone until you fall silent, then answer (and speak the answer).")
    var voice = false

    @Flag(inversion: .prefixedNo, help: "With --voice: speak the answer.")
    var speak = true

    @Option(name: .customLong("voice-name"), help: "The voice answers are spoken with: joe (Piper, the default) or an espeak-ng voice such as en-us or fr locally, alloy, nova … for OpenAI (default: tts.voice).")
    var voiceName: String?

    @Option(help: "Record and play with: auto, pulse (PulseAudio/PipeWire) or alsa.")
    var audio: Microphone.Backend = .auto

    @Flag(help: "With chat --voice: speaking while an answer is spoken stops it and starts your next question. Use headphones or an echo-cancelling microphone, or the answer's own sound interrupts it.")
    var bargeIn = false
}

/// The terminal's microphone and speaker: records until the speaker falls silent, with a level
/// meter on standard error, then asks; speaks answers.
struct VoiceConsole {
    let runtime: SibylRuntime
    let options: VoiceOptions

    /// A question heard and asked, and the clock of its stages from the end of speech.
    struct Heard {
        var turn: VoiceTurn
        var stages: VoiceStageClock
        /// From the end of speech to the final transcript.
        var transcriptLag: Duration
    }

    /// Records one question and asks it; nil when nobody spoke. `interruption`: the question
    /// began while the last answer was spoken (a barge-in).
    func listen(request: AskRequest, after interruption: Interruption? = nil) async throws -> Heard? {
        guard let (heard, lag) = try await hear(after: interruption) else {
            Terminal.error(Terminal.yellow("(no speech heard)", stderr: true))
            return nil
        }
        let stages = VoiceStageClock(start: .now - lag)
        let turn = try await runtime.voice.ask(heard: heard, request: request)
        Terminal.print(Terminal.bold("you said › ") + turn.transcript.text.trimmingCharacters(in: .whitespacesAndNewlines))
        return Heard(turn: turn, stages: stages, transcriptLag: lag)
    }

    /// Records from the microphone until the question is over, and transcribes it as it ends:
    /// after a short silence when the words end a sentence, a longer one when they stop
    /// mid-sentence (see `SpokenQuestionListener`); nil when nobody spoke in time. Ctrl-C stops
    /// the recording early and keeps what was said.
    func hear(after interruption: Interruption? = nil) async throws -> (Transcription, lag: Duration)? {
        let microphone = Microphone(backend: options.audio)
        // The recognisers load while the person speaks (once per process; the first question
        // waits only for what is left of the load).
        Task { [runtime] in await runtime.voice.warmUp() }
        let listener = try runtime.voice.listener(languageHint: Terminal.language)
        let configuration = runtime.voice.detection()
        Interrupts.shared.onInterrupt { Task { await listener.stop() } }
        defer { Interrupts.shared.onInterrupt(nil) }
        Terminal.error(Terminal.dim("listening… (speak; it stops when you have finished, or press Ctrl-C)", stderr: true))
        // After a barge-in, the same recording goes on: not a sample of the question is lost.
        let samples = try interruption?.microphone ?? microphone.samples()
        if let interruption { await listener.add(interruption.heard) }
        let listening = Task {
            var lastMeter = ContinuousClock.now
            for try await chunk in samples {
                await listener.add(chunk)
                if ContinuousClock.now - lastMeter > .milliseconds(100) {
                    lastMeter = .now
                    let (level, threshold, speaking) = await listener.level
                    Terminal.meter(level: level, threshold: threshold, speaking: speaking, words: await listener.partial?.text)
                }
                if await listener.isDone { return }
            }
            // The microphone ended: what was said so far is the question.
            await listener.stop()
        }
        // A microphone that delivers nothing (a muted or idle source) must not hang the wait for
        // speech: after the wait, with no speech begun, the question ends; and no question is
        // longer than the longest recording.
        let watchdog = listener.watchdog(configuration)
        defer { watchdog.cancel() }
        let outcome: SpokenQuestionListener.Outcome
        do {
            outcome = try await listener.result()
        } catch {
            listening.cancel()
            Terminal.meter(level: nil, threshold: 0, speaking: false)
            throw error
        }
        listening.cancel()
        Terminal.meter(level: nil, threshold: 0, speaking: false)
        guard case .heard(let transcription, _) = outcome else { return nil }
        return (transcription, await listener.transcriptLag ?? .zero)
    }

    /// The person spoke over an answer (`--barge-in`): what they have said so far (the start of
    /// their next question, from a little before they began), and the recording, which goes on.
    struct Interruption {
        var heard: [Int16]
        var microphone: AsyncThrowingStream<[Int16], any Error>
    }

    /// How a spoken answer ended.
    struct Answered {
        var outcome: AnswerPrinter.Outcome
        var interruption: Interruption?
    }

    /// Prints the answer to a spoken question and, when `speak`, says it at the same time, a
    /// sentence at a time; returns when both are over. Ctrl-C stops the answer being written,
    /// then the playback. With `--barge-in`, speaking over the answer stops it (and the writing).
    /// The stage times (from the end of speech) are logged, and shown unless the answer is
    /// printed as JSON.
    func answer(_ heard: Heard, printer: AnswerPrinter, speak: Bool) async -> Answered {
        let result = heard.turn.ask
        let watching = Task { [stages = heard.stages] in
            guard case .answering(let turn) = result.outcome else { return }
            for await event in turn.events() {
                if case .delta = event { return stages.token() }
            }
        }
        let speaking = speak ? Task { await self.speak(result, stages: heard.stages) } : nil
        let listening = speaking.flatMap { speaking in options.bargeIn ? Task { await self.interruption(of: speaking, result: result) } : nil }
        let outcome = await printer.print(result)
        Interrupts.shared.onInterrupt { speaking?.cancel() }
        defer { Interrupts.shared.onInterrupt(nil) }
        await speaking?.value
        listening?.cancel()
        let interruption = await listening?.value ?? nil
        watching.cancel()
        let timings = Wire.VoiceTimings(receive: .zero, decode: .zero, transcribe: heard.transcriptLag, firstToken: heard.stages.firstToken, firstAudio: heard.stages.firstAudio)
        if !printer.json { Terminal.error(Terminal.dim(Self.describe(timings), stderr: true)) }
        await runtime.voice.record(timings)
        return Answered(outcome: outcome, interruption: interruption)
    }

    /// Listens while an answer is spoken: when the person starts speaking, the answer stops (its
    /// playback, and its writing if it is still being written) and the recording is handed on.
    /// Nil when the answer ended first (the task is cancelled then) or the microphone cannot record.
    func interruption(of speaking: Task<Void, Never>, result: AskResult) async -> Interruption? {
        guard let samples = try? Microphone(backend: options.audio).samples() else { return nil }
        let classifier = runtime.voice.speechClassifier()
        var configuration = runtime.voice.detection(hearingSpeech: classifier != nil)
        // No wait for speech and no end to it: only its start matters here.
        configuration.waitForSpeech = .seconds(24 * 3600)
        configuration.maximumSpeech = .seconds(24 * 3600)
        var detector = VoiceActivityDetector(sampleRate: AudioResampling.speechSampleRate, configuration: configuration, classifier: classifier)
        // The recording so far, of which a little before the speech is kept (the listener needs it).
        var recorded: [Int16] = []
        var dropped = 0
        let keep = AudioResampling.speechSampleRate * 2
        do {
            for try await chunk in samples {
                recorded += chunk
                for event in detector.process(chunk) {
                    guard case .speechStarted(let sample) = event else { continue }
                    speaking.cancel()
                    if case .answering(let turn) = result.outcome, !turn.hasEnded { turn.cancel() }
                    Terminal.error(Terminal.dim("(you spoke: the answer stops and Sibyl listens)", stderr: true))
                    let from = max(0, sample - dropped - AudioResampling.speechSampleRate / 2)
                    return Interruption(heard: Array(recorded[from...]), microphone: samples)
                }
                if recorded.count > keep * 2 {
                    dropped += recorded.count - keep
                    recorded.removeFirst(recorded.count - keep)
                }
            }
        } catch {
            return nil
        }
        return nil
    }

    /// "after you stopped: text 0.62 s · first words 0.98 s · first audio 1.41 s"
    static func describe(_ timings: Wire.VoiceTimings) -> String {
        func seconds(_ ms: Int) -> String { String(format: "%.2f s", Double(ms) / 1000) }
        var stages = ["text \(seconds(timings.transcribe))"]
        if let firstToken = timings.firstToken { stages.append("first words \(seconds(firstToken))") }
        if let firstAudio = timings.firstAudio { stages.append("first audio \(seconds(firstAudio))") }
        return "after you stopped: " + stages.joined(separator: " · ")
    }

    /// Speaks text on the default speaker; problems are reported, not thrown.
    func speak(_ text: String) async {
        do {
            let audio = try await runtime.voice.speak(GlassesText.plain(text), options: speechOptions)
            try await Speaker(backend: options.audio).play(audio)
        } catch {
            Terminal.report(error)
        }
    }

    /// Speaks an answer on the default speaker as it is written, a sentence at a time (the first
    /// sentence plays while the model writes the rest); a declined question's reply whole.
    /// Cancelling the task stops the playback. Problems are reported, not thrown.
    func speak(_ result: AskResult, stages: VoiceStageClock? = nil) async {
        switch result.outcome {
        case .declined(let declined):
            await speak(declined.reply.text)
        case .answering(let turn):
            let speaker = Speaker(backend: options.audio)
            do {
                for try await sentence in runtime.voice.speakAsWritten(turn, options: speechOptions) {
                    stages?.audio()
                    try await speaker.play(sentence.audio)
                    try Task.checkCancellation()
                }
            } catch is CancellationError {
                return
            } catch {
                Terminal.report(error)
            }
        }
    }

    private var speechOptions: SpeechOptions { SpeechOptions(voice: options.voiceName, format: .wav) }
}
