public import ArgumentParser
import Assistant
import Foundation
import LocalEngines
import SibylApp
import SibylCore
import Synchronization

extension Microphone.Backend: ExpressibleByArgument {}

/// Options for asking by voice.
struct VoiceOptions: ParsableArguments {
    @Flag(help: "Ask by voice: record from the default microphone until you fall silent, then answer (and speak the answer).")
    var voice = false

    @Flag(inversion: .prefixedNo, help: "With --voice: speak the answer.")
    var speak = true

    @Option(name: .customLong("voice-name"), help: "The voice answers are spoken with: an espeak-ng voice such as en-us or fr locally, alloy, nova … for OpenAI (default: tts.voice).")
    var voiceName: String?

    @Option(help: "Record and play with: auto, pulse (PulseAudio/PipeWire) or alsa.")
    var audio: Microphone.Backend = .auto
}

/// The terminal's microphone and speaker: records until the speaker falls silent, with a level
/// meter on standard error, then asks; speaks answers.
struct VoiceConsole {
    let runtime: SibylRuntime
    let options: VoiceOptions

    /// Records one question and asks it; nil when nobody spoke.
    func listen(request: AskRequest) async throws -> VoiceTurn? {
        guard let recording = try await record() else {
            Terminal.error(Terminal.yellow("(no speech heard)", stderr: true))
            return nil
        }
        Terminal.error(Terminal.dim("transcribing…", stderr: true))
        let turn = try await runtime.voice.ask(AudioFile(data: recording.encoded(), format: .wav), request: request, languageHint: Terminal.language)
        Terminal.print(Terminal.bold("you said › ") + turn.transcript.text.trimmingCharacters(in: .whitespacesAndNewlines))
        return turn
    }

    /// Records from the microphone until the voice-activity detector hears the end of speech;
    /// nil when nobody spoke in time. Ctrl-C stops the recording early and keeps what was said.
    func record() async throws -> WAVAudio? {
        let microphone = Microphone(backend: options.audio)
        // The recognisers load while the person speaks (once per process; the first question
        // waits only for what is left of the load).
        Task { [runtime] in await runtime.voice.warmUp() }
        let detector = runtime.voice.detector(sampleRate: Microphone.sampleRate)
        let configuration = detector.configuration
        let recording = Recording(detector: detector)
        Interrupts.shared.onInterrupt { recording.stop() }
        defer { Interrupts.shared.onInterrupt(nil) }
        Terminal.error(Terminal.dim("listening… (speak; it stops when you fall silent, or press Ctrl-C)", stderr: true))
        let samples = try microphone.samples()
        let listening = Task {
            var lastMeter = ContinuousClock.now
            for try await chunk in samples {
                let (level, threshold, speaking) = recording.add(chunk)
                if ContinuousClock.now - lastMeter > .milliseconds(100) {
                    lastMeter = .now
                    Terminal.meter(level: level, threshold: threshold, speaking: speaking)
                }
                if recording.isDone { return }
            }
        }
        // A microphone that delivers nothing (a muted or idle source) must not hang the wait for
        // speech: after the wait, with no speech begun, the recording stops.
        let watchdog = Task {
            try await Task.sleep(for: configuration.waitForSpeech + .seconds(1))
            if !recording.heardSpeech { listening.cancel() }
            try await Task.sleep(for: configuration.maximumSpeech)
            listening.cancel()
        }
        let stopped = Task {
            while !recording.isDone { try await Task.sleep(for: .milliseconds(50)) }
            listening.cancel()
        }
        let ended = await listening.result
        watchdog.cancel()
        stopped.cancel()
        Terminal.meter(level: nil, threshold: 0, speaking: false)
        if case .failure(let error) = ended, !(error is CancellationError) { throw error }
        return recording.speech(margin: Microphone.sampleRate / 4)
    }

    /// Speaks text on the default speaker; problems are reported, not thrown.
    func speak(_ text: String) async {
        do {
            let audio = try await runtime.voice.speak(GlassesText.plain(text), options: SpeechOptions(voice: options.voiceName, format: .wav))
            try await Speaker(backend: options.audio).play(audio)
        } catch {
            Terminal.report(error)
        }
    }
}

/// What the microphone delivered and where the detector heard speech; shared with the signal
/// handler (Ctrl-C) and the watchdog.
final class Recording: Sendable {
    private struct State {
        var detector: VoiceActivityDetector
        var samples: [Int16] = []
        var start: Int?
        var end: Int?
        var stopped = false
    }

    private let state: Mutex<State>

    init(detector: VoiceActivityDetector) {
        state = Mutex(State(detector: detector))
    }

    /// Adds samples; returns the level meter's reading.
    func add(_ chunk: [Int16]) -> (level: Double, threshold: Double, speaking: Bool) {
        state.withLock { state in
            state.samples += chunk
            for event in state.detector.process(chunk) {
                switch event {
                case .speechStarted(let sample): state.start = sample
                case .speechEnded(let sample), .tooLong(let sample): state.end = sample
                case .noSpeech: break
                }
            }
            return (state.detector.level, state.detector.threshold, state.detector.isSpeaking)
        }
    }

    /// Ends the recording (Ctrl-C): what was said so far is kept.
    func stop() { state.withLock { $0.stopped = true } }

    var isDone: Bool { state.withLock { $0.detector.isDone || $0.stopped } }
    var heardSpeech: Bool { state.withLock { $0.start != nil } }

    /// The speech with `margin` samples of what came before and after, as a WAV; nil when none.
    func speech(margin: Int) -> WAVAudio? {
        state.withLock { state in
            guard let start = state.start else { return nil }
            let from = max(0, start - margin)
            let to = max(from, min(state.samples.count, (state.end ?? state.samples.count) + margin))
            return AudioResampling.wav(pcm16: Array(state.samples[from..<to]), sampleRate: Microphone.sampleRate)
        }
    }
}
