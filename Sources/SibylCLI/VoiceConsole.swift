import ArgumentParser
import Assistant
import Foundation
import LocalEngines
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
        let turn = try await runtime.voiceTurn(AudioFile(data: recording.encoded(), format: .wav), request: request)
        Terminal.print(Terminal.bold("you said › ") + turn.transcript.text.trimmingCharacters(in: .whitespacesAndNewlines))
        return turn
    }

    /// Records from the microphone until the voice-activity detector hears the end of speech;
    /// nil when nobody spoke in time. Ctrl-C stops the recording early and keeps what was said.
    func record() async throws -> WAVAudio? {
        let microphone = Microphone(backend: options.audio)
        var detector = VoiceActivityDetector(sampleRate: Microphone.sampleRate, configuration: runtime.voiceDetection)
        let stopped = StopFlag()
        Interrupts.shared.onInterrupt { stopped.set() }
        defer { Interrupts.shared.onInterrupt(nil) }
        Terminal.error(Terminal.dim("listening… (speak; it stops when you fall silent, or press Ctrl-C)", stderr: true))
        var samples: [Int16] = []
        var range: (start: Int, end: Int?)?
        var lastMeter = ContinuousClock.now
        recording: for try await chunk in try microphone.samples() {
            samples += chunk
            for event in detector.process(chunk) {
                switch event {
                case .speechStarted(let sample): range = (sample, nil)
                case .speechEnded(let sample), .tooLong(let sample): range?.end = sample
                case .noSpeech: break
                }
            }
            if ContinuousClock.now - lastMeter > .milliseconds(100) {
                lastMeter = .now
                Terminal.meter(level: detector.level, threshold: detector.threshold, speaking: detector.isSpeaking)
            }
            if detector.isDone || stopped.isSet { break recording }
        }
        Terminal.meter(level: nil, threshold: 0, speaking: false)
        guard let range else { return nil }
        // A quarter second of what came before and after helps speech-to-text with the edges.
        let margin = Microphone.sampleRate / 4
        let end = min(samples.count, (range.end ?? samples.count) + margin)
        let kept = Array(samples[max(0, range.start - margin)..<max(max(0, range.start - margin), end)])
        return AudioResampling.wav(pcm16: kept, sampleRate: Microphone.sampleRate)
    }

    /// Speaks text on the default speaker; problems are reported, not thrown.
    func speak(_ text: String) async {
        do {
            let audio = try await runtime.speak(GlassesText.plain(text), options: SpeechOptions(voice: options.voiceName, format: .wav))
            try await Speaker(backend: options.audio).play(audio)
        } catch {
            Terminal.report(error)
        }
    }
}

/// A flag set from a signal handler.
final class StopFlag: Sendable {
    private let flag = Mutex(false)
    func set() { flag.withLock { $0 = true } }
    var isSet: Bool { flag.withLock { $0 } }
}
