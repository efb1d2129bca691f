import Foundation
public import SibylCore

/// Offline speech-to-text: whisper.cpp's `whisper-cli` run on a 16 kHz mono WAV made from the recording.
///
/// Any PCM or float WAV (any rate, any channel count) is accepted; it is mixed down and resampled
/// here, so whisper.cpp always gets the format its model was trained on.
public struct WhisperTranscriber: Transcriber {
    /// The `whisper-cli` program.
    public let executable: URL
    /// The ggml model file.
    public let model: URL
    /// CPU threads whisper.cpp uses.
    public let threads: Int

    /// All cores up to 8: whisper.cpp's speed-up flattens beyond that.
    public static var defaultThreads: Int { min(8, max(1, ProcessInfo.processInfo.activeProcessorCount)) }

    /// Lines of whisper.cpp's error output kept for error messages.
    static let stderrTailLines = 12

    /// Uses the given program and model.
    public init(executable: URL, model: URL, threads: Int = WhisperTranscriber.defaultThreads) {
        self.executable = executable
        self.model = model
        self.threads = max(1, threads)
    }

    /// Uses the engine and model that `sibyl models install stt` puts in the engines directory.
    public init(layout: EngineLayout = EngineLayout(), threads: Int = WhisperTranscriber.defaultThreads) {
        self.init(executable: layout.whisperCLI, model: layout.whisperModel, threads: threads)
    }

    /// Whether the program and the model are both in place.
    public var isInstalled: Bool {
        FileManager.default.isExecutableFile(atPath: executable.path) && FileManager.default.fileExists(atPath: model.path)
    }

    /// Transcribes (or translates into English) a WAV recording; cancelling the task stops whisper.cpp.
    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw LocalEngineError.notInstalled(component: "stt", missing: executable.path)
        }
        guard FileManager.default.fileExists(atPath: model.path) else {
            throw LocalEngineError.notInstalled(component: "stt", missing: model.path)
        }
        let recording = try Self.decode(audio)
        let samples = AudioResampling.pcm16(AudioResampling.speechSamples(from: recording))
        guard !samples.isEmpty else { return Transcription(text: "", language: options.language, duration: 0) }
        try Task.checkCancellation()

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-stt-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("audio.wav")
        let outputBase = directory.appendingPathComponent("transcript")
        let log = directory.appendingPathComponent("whisper.log")
        try AudioResampling.wav(pcm16: samples, sampleRate: AudioResampling.speechSampleRate).encoded().write(to: input)

        let termination = try await WhisperProcess.run(
            executable, arguments: arguments(input: input, outputBase: outputBase, options: options), standardError: log
        )
        let stderr = Self.tail(of: log)
        switch termination {
        case .exited(0): break
        case .exited(let status): throw WhisperError.processFailed(status: status, stderr: stderr)
        case .signalled(let signal): throw WhisperError.crashed(signal: signal, stderr: stderr)
        }
        guard let json = try? Data(contentsOf: outputBase.appendingPathExtension("json")) else {
            // whisper-cli rejects an unknown language by printing its usage and exiting with status 0.
            if stderr.contains("unknown language") { throw WhisperError.unknownLanguage(options.language ?? "") }
            throw WhisperError.missingOutput(stderr: stderr)
        }
        let output = try WhisperCLIOutput(json: json)
        let language = output.result?.language ?? options.language
        guard let subtitleExtension = Self.subtitleExtension(options.format) else {
            return Transcription(text: output.text, language: language, duration: recording.duration)
        }
        guard let subtitles = try? Data(contentsOf: outputBase.appendingPathExtension(subtitleExtension)) else {
            throw WhisperError.missingOutput(stderr: stderr)
        }
        return Transcription(text: String(decoding: subtitles, as: UTF8.self), language: language, duration: recording.duration)
    }

    /// whisper-cli's command line for one transcription.
    func arguments(input: URL, outputBase: URL, options: TranscriptionOptions) -> [String] {
        let language = options.language.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.flatMap { $0.isEmpty ? nil : $0 }
        var arguments = [
            "--model", model.path,
            "--file", input.path,
            "--output-json", "--output-file", outputBase.path,
            "--threads", String(threads),
            "--language", language ?? "auto",
        ]
        if options.translate { arguments.append("--translate") }
        if let subtitles = Self.subtitleExtension(options.format) { arguments.append("--output-\(subtitles)") }
        if let prompt = options.prompt, !prompt.isEmpty { arguments += ["--prompt", prompt] }
        if let temperature = options.temperature { arguments += ["--temperature", String(temperature)] }
        return arguments
    }

    /// The file whisper-cli writes for a subtitle format (`--output-srt` → `.srt`), nil for plain text.
    static func subtitleExtension(_ format: TranscriptFormat) -> String? {
        switch format {
        case .text: nil
        case .srt: "srt"
        case .vtt: "vtt"
        }
    }

    /// The recording as decoded samples; only WAV carries the header needed to read it here.
    static func decode(_ audio: AudioFile) throws -> PCMBuffer {
        let isRIFF = audio.data.prefix(4).elementsEqual("RIFF".utf8)
        guard isRIFF else {
            let reason = audio.format == .pcm
                ? "raw PCM has no header giving its sample rate and sample format"
                : "only WAV is decoded locally"
            throw WhisperError.unsupportedAudio(format: audio.format, reason: reason)
        }
        do {
            return try PCMBuffer(wav: audio.data)
        } catch {
            throw WhisperError.unsupportedAudio(format: audio.format, reason: (error as? LocalizedError)?.errorDescription ?? "\(error)")
        }
    }

    /// The last lines of a log, trimmed.
    static func tail(of log: URL) -> String {
        guard let data = try? Data(contentsOf: log) else { return "" }
        let lines = String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline)
        return lines.suffix(stderrTailLines).joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
