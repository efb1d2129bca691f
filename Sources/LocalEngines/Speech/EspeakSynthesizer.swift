import Foundation
import SibylCore

/// Text-to-speech with espeak-ng (run as a program, so its GPL code is not linked into Sibyl).
public struct EspeakSynthesizer: SpeechSynthesizer {
    /// The voice used when none (or an OpenAI voice name, which espeak-ng does not have) is asked for.
    public static let defaultVoice = "en-us"
    /// espeak-ng's normal speed in words per minute.
    static let normalWordsPerMinute = 175
    /// OpenAI's voice names, which mean "the default voice" here.
    static let openAIVoices: Set<String> = ["alloy", "ash", "ballad", "coral", "echo", "fable", "nova", "onyx", "sage", "shimmer", "verse"]

    let executable: String?

    /// Uses `espeak-ng` from PATH, or the given program.
    public init(executable: String? = nil) {
        self.executable = executable ?? (try? CommandRunner.resolve("espeak-ng"))
    }

    /// Whether espeak-ng is installed.
    public var isAvailable: Bool { executable != nil }

    public func synthesize(_ text: String, options: SpeechOptions) async throws -> AudioFile {
        guard let executable else { throw LocalEngineError.notInstalled(component: "tts", missing: "espeak-ng") }
        guard options.format == .wav || options.format == .pcm else {
            throw SpeechError.unsupportedFormat(options.format.rawValue)
        }
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { throw SpeechError.emptyText }
        var voice = options.voice ?? Self.defaultVoice
        if Self.openAIVoices.contains(voice.lowercased()) { voice = Self.defaultVoice }
        let speed = Int((Double(Self.normalWordsPerMinute) * (options.speed ?? 1)).rounded())
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-tts-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appendingPathComponent("speech.wav")
        let input = directory.appendingPathComponent("text.txt")
        try Data(trimmed.utf8).write(to: input)
        do {
            // Text from a file, not the command line: no length limit and no option injection.
            try await CommandRunner.run(executable, ["-v", voice, "-s", String(max(80, min(500, speed))), "-f", input.path, "-w", output.path], log: directory.appendingPathComponent("espeak.log"))
        } catch InstallError.commandFailed(_, _, let tail, _) {
            throw SpeechError.engineFailed(tail.isEmpty ? "espeak-ng failed for voice \(voice)" : tail)
        }
        let data = try Data(contentsOf: output)
        if options.format == .pcm { return AudioFile(data: try WAVAudio(parsing: data).samples, format: .pcm) }
        return AudioFile(data: data, format: .wav)
    }

    /// The voices espeak-ng offers, as `(language, name)`.
    public func voices() async throws -> [(language: String, name: String)] {
        guard let executable else { throw LocalEngineError.notInstalled(component: "tts", missing: "espeak-ng") }
        let pipe = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--voices"]
        process.standardOutput = pipe
        try process.run()
        let data = await PipeDrain.readToEnd(pipe.fileHandleForReading)
        await process.exited()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: " ", omittingEmptySubsequences: true)
            guard columns.count >= 4 else { return nil }
            return (String(columns[1]), String(columns[3]))
        }
    }
}

/// Problems with local speech synthesis.
public enum SpeechError: Error, LocalizedError, Equatable {
    case unsupportedFormat(String)
    case emptyText
    case engineFailed(String)

    public var errorDescription: String? {
        switch self {
        case .unsupportedFormat(let format): "The local voice writes WAV (or raw PCM), not \(format)."
        case .emptyText: "There is no text to speak."
        case .engineFailed(let detail): "espeak-ng failed: \(detail)"
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .unsupportedFormat: "Ask for WAV, or use a remote text-to-speech provider (the tts.provider setting)."
        case .engineFailed: "`espeak-ng --voices` lists the voices; pass one with --voice."
        default: nil
        }
    }
}
