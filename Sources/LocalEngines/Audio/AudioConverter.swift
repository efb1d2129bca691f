import Foundation
public import SibylCore

/// Converts audio with ffmpeg (Debian's, run as a program): browsers and phones record WebM/Opus,
/// Ogg/Opus, MP4/AAC or MP3, whisper.cpp reads 16 kHz mono WAV, and espeak-ng writes only WAV.
///
/// ffmpeg reads every container and codec a browser records, and Debian ships it built with
/// libopus, libmp3lame and its native AAC and FLAC codecs; decoding those formats in Swift would
/// mean re-implementing four codecs. WAV needs no ffmpeg: it is resampled in Swift.
public struct AudioConverter: Sendable {
    /// The longest recording accepted, in seconds.
    public static let maximumDuration = 3600

    let executable: String?

    /// Uses `ffmpeg` from PATH, or the given program.
    public init(executable: String? = nil) {
        self.executable = executable ?? (try? CommandRunner.resolve("ffmpeg"))
    }

    /// Whether ffmpeg is installed.
    public var isAvailable: Bool { executable != nil }

    /// The recording as 16 kHz mono 16-bit WAV, the format speech-to-text engines take.
    public func speechWAV(from audio: AudioFile) async throws -> AudioFile {
        let format = AudioFormat(sniffing: audio.data) ?? audio.format
        if format == .wav {
            do {
                return AudioFile(data: try AudioResampling.speechWAV(fromWAV: audio.data).encoded(), format: .wav)
            } catch {
                throw AudioConversionError.unreadable(format: "WAV", detail: error.localizedDescription)
            }
        }
        return try await run(audio, output: ["-ac", "1", "-ar", String(AudioResampling.speechSampleRate), "-c:a", "pcm_s16le", "-f", "wav"], as: .wav)
    }

    /// Encodes a recording in another format: mp3, opus (in Ogg), aac (ADTS), flac or wav.
    public func encode(_ audio: AudioFile, as format: AudioFormat) async throws -> AudioFile {
        let output: [String]
        switch format {
        case .wav: output = ["-c:a", "pcm_s16le", "-f", "wav"]
        case .mp3: output = ["-c:a", "libmp3lame", "-q:a", "4", "-f", "mp3"]
        case .opus, .ogg: output = ["-c:a", "libopus", "-b:a", "48k", "-f", "ogg"]
        case .aac: output = ["-c:a", "aac", "-b:a", "96k", "-f", "adts"]
        case .m4a: output = ["-c:a", "aac", "-b:a", "96k", "-f", "ipod"]
        case .flac: output = ["-c:a", "flac", "-f", "flac"]
        case .webm: output = ["-c:a", "libopus", "-b:a", "48k", "-f", "webm"]
        case .pcm: output = ["-ac", "1", "-ar", "24000", "-c:a", "pcm_s16le", "-f", "s16le"]
        }
        return try await run(audio, output: output, as: format)
    }

    private func run(_ audio: AudioFile, output: [String], as format: AudioFormat) async throws -> AudioFile {
        guard let executable else { throw AudioConversionError.ffmpegMissing }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-audio-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A file, not a pipe: MP4 keeps its index at the end, which ffmpeg must seek to.
        let input = directory.appendingPathComponent("input")
        let result = directory.appendingPathComponent("output")
        try audio.data.write(to: input)
        let arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-i", input.path, "-vn", "-t", String(Self.maximumDuration)] + output + [result.path]
        do {
            try await CommandRunner.run(executable, arguments, log: directory.appendingPathComponent("ffmpeg.log"))
        } catch InstallError.commandFailed(_, _, let tail, _) {
            throw AudioConversionError.unreadable(format: audio.format.rawValue, detail: tail.isEmpty ? "ffmpeg could not read it" : tail)
        }
        let data = try Data(contentsOf: result)
        guard !data.isEmpty else { throw AudioConversionError.unreadable(format: audio.format.rawValue, detail: "no audio came out of it") }
        return AudioFile(data: data, format: format)
    }
}

/// Audio that could not be converted.
public enum AudioConversionError: Error, LocalizedError, Equatable, RemedyProviding {
    case ffmpegMissing
    case unreadable(format: String, detail: String)

    public var errorDescription: String? {
        switch self {
        case .ffmpegMissing: "Audio other than WAV needs ffmpeg, which is not installed."
        case .unreadable(let format, let detail): "The audio (\(format)) could not be read: \(detail)"
        }
    }

    public var remedy: Remedy? {
        switch self {
        case .ffmpegMissing: .install(component: "stt")
        case .unreadable: nil
        }
    }
}
