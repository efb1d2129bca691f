import Foundation
import SibylCore
public import SibylCore

/// Why a local Whisper transcription failed (a missing engine or model is `LocalEngineError.notInstalled`).
public enum WhisperError: Error, Equatable, LocalizedError {
    /// The recording is not a WAV file this transcriber can decode.
    case unsupportedAudio(format: AudioFormat, reason: String)
    /// whisper.cpp does not know the requested language code.
    case unknownLanguage(String)
    /// whisper.cpp exited with a failure status; the end of its error output is attached.
    case processFailed(status: Int32, stderr: String)
    /// whisper.cpp was killed by a signal (SIGILL: built for another CPU; SIGKILL: out of memory, often).
    case crashed(signal: Int32, stderr: String)
    /// whisper.cpp exited without writing its JSON result; the end of its error output is attached.
    case missingOutput(stderr: String)
    /// whisper.cpp's JSON result could not be read.
    case unreadableOutput(String)
    /// whisper-server answered a transcription with an error status.
    case serverFailed(status: Int, message: String)

    public var errorDescription: String? {
        switch self {
        case .unsupportedAudio(let format, let reason):
            "Local transcription reads PCM WAV audio; this \(format.rawValue) recording cannot be decoded (\(reason))."
        case .unknownLanguage(let code):
            "Whisper does not know the language code \"\(code)\"."
        case .processFailed(let status, let stderr):
            "whisper.cpp failed (exit status \(status)): \(stderr.isEmpty ? "it printed no error" : stderr)"
        case .crashed(let signal, let stderr):
            "whisper.cpp was stopped by signal \(signal)\(signal == 4 ? " (illegal instruction: the program was built for another CPU)" : ""): \(stderr.isEmpty ? "it printed no error" : stderr)"
        case .missingOutput(let stderr):
            "whisper.cpp finished without writing a transcript: \(stderr.isEmpty ? "it printed no error" : stderr)"
        case .unreadableOutput(let reason):
            "whisper.cpp's JSON transcript could not be read: \(reason)"
        case .serverFailed(let status, let message):
            "whisper-server failed (HTTP \(status)): \(message.isEmpty ? "it gave no reason" : message)"
        }
    }

    public var recoverySuggestion: String? {
        switch self {
        case .unsupportedAudio:
            "Convert the recording to WAV first (for example `ffmpeg -i input -ar 16000 -ac 1 output.wav`), or use a remote speech-to-text provider."
        case .unknownLanguage:
            "Use an ISO-639-1 code such as en, fr or de, or leave the language out to detect it."
        case .processFailed, .crashed, .missingOutput, .unreadableOutput, .serverFailed:
            "If the program or the model file is damaged, reinstall the speech-to-text component."
        }
    }
}

extension WhisperError: RemedyProviding {
    /// A damaged engine is reinstalled.
    public var remedy: Remedy? {
        switch self {
        case .processFailed, .crashed, .missingOutput, .unreadableOutput, .serverFailed: .install(component: "stt")
        default: nil
        }
    }
}
