import Foundation
public import SibylCore
import Subprocess
import SystemPackage

/// The default microphone, read through the sound server's recorder: `parec` (PulseAudio, or
/// PipeWire's PulseAudio service) when a sound server answers, otherwise ALSA's `arecord`.
///
/// Samples arrive as 16 kHz mono 16-bit PCM, the format speech-to-text engines take, in chunks of
/// about 100 ms. Recording stops when the consumer stops iterating or its task is cancelled.
public struct Microphone: Sendable {
    /// Which recorder to use.
    public enum Backend: String, Sendable, CaseIterable {
        /// `parec` when a PulseAudio-compatible server answers, else `arecord`.
        case auto
        /// PulseAudio or PipeWire, through `parec`.
        case pulse
        /// ALSA's default capture device, through `arecord`.
        case alsa
    }

    /// The sample rate recorded at.
    public static let sampleRate = 16_000

    public let backend: Backend

    public init(backend: Backend = .auto) {
        self.backend = backend
    }

    /// The recorder and its arguments, as chosen now.
    public func command() throws -> (executable: String, arguments: [String]) {
        let pulse = ["parec", "--raw", "--format=s16le", "--rate=\(Self.sampleRate)", "--channels=1", "--latency-msec=50"]
        let alsa = ["arecord", "-q", "-t", "raw", "-f", "S16_LE", "-r", String(Self.sampleRate), "-c", "1"]
        let chosen: [String]
        switch backend {
        case .pulse: chosen = pulse
        case .alsa: chosen = alsa
        case .auto: chosen = Self.soundServerAnswers() ? pulse : alsa
        }
        guard let executable = try? CommandRunner.resolve(chosen[0]) else {
            throw MicrophoneError.recorderMissing(chosen[0], package: chosen[0] == "parec" ? "pulseaudio-utils" : "alsa-utils")
        }
        return (executable, Array(chosen.dropFirst()))
    }

    /// Samples from the microphone as they are recorded.
    public func samples() throws -> AsyncThrowingStream<[Int16], any Error> {
        let (executable, arguments) = try command()
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    var options = PlatformOptions()
                    options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .milliseconds(500))]
                    let result = try await Subprocess.run(
                        .path(FilePath(executable)), arguments: Arguments(arguments), platformOptions: options,
                        input: .none, output: .sequence, error: .discarded
                    ) { execution in
                        var carry: UInt8?
                        for try await buffer in execution.standardOutput {
                            var bytes = buffer.withUnsafeBytes { Array($0) }
                            if let byte = carry {
                                bytes.insert(byte, at: 0)
                                carry = nil
                            }
                            if bytes.count % 2 == 1 { carry = bytes.removeLast() }
                            let samples = stride(from: 0, to: bytes.count, by: 2).map { Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8) }
                            if !samples.isEmpty { continuation.yield(samples) }
                        }
                    }
                    if case .exited(let code) = result.terminationStatus, code != 0, !Task.isCancelled {
                        throw MicrophoneError.recorderFailed(executable, status: code)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: Task.isCancelled ? CancellationError() : error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Whether a PulseAudio-compatible sound server answers (`pactl info`).
    static func soundServerAnswers() -> Bool {
        guard let pactl = try? CommandRunner.resolve("pactl") else { return false }
        return CommandRunner.capture(pactl, ["info"])?.status == 0
    }
}

/// Plays audio on the default speaker: `paplay` through a sound server, else ALSA's `aplay`.
public struct Speaker: Sendable {
    public let backend: Microphone.Backend

    public init(backend: Microphone.Backend = .auto) {
        self.backend = backend
    }

    /// Plays a WAV file to the end; cancelling the task stops it.
    public func play(_ wav: AudioFile) async throws {
        let useServer: Bool
        switch backend {
        case .pulse: useServer = true
        case .alsa: useServer = false
        case .auto: useServer = Microphone.soundServerAnswers()
        }
        let name = useServer ? "paplay" : "aplay"
        guard let executable = try? CommandRunner.resolve(name) else {
            throw MicrophoneError.recorderMissing(name, package: useServer ? "pulseaudio-utils" : "alsa-utils")
        }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-speech-\(UUID().uuidString).wav")
        try wav.data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var options = PlatformOptions()
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .milliseconds(500))]
        let result = try await Subprocess.run(
            .path(FilePath(executable)), arguments: Arguments(useServer ? [file.path] : ["-q", file.path]), platformOptions: options,
            input: .none, output: .discarded, error: .discarded
        )
        if case .exited(let code) = result.terminationStatus, code != 0, !Task.isCancelled {
            throw MicrophoneError.playerFailed(executable, status: code)
        }
    }
}

/// Problems recording or playing sound.
public enum MicrophoneError: Error, LocalizedError, Equatable {
    case recorderMissing(String, package: String)
    case recorderFailed(String, status: Int32)
    case playerFailed(String, status: Int32)

    public var errorDescription: String? {
        switch self {
        case .recorderMissing(let tool, let package): "\(tool) is not installed (Debian package \(package))."
        case .recorderFailed(let tool, let status): "\(tool) could not record (exit status \(status)): is there a microphone, and is it not in use?"
        case .playerFailed(let tool, let status): "\(tool) could not play the answer (exit status \(status))."
        }
    }
}
