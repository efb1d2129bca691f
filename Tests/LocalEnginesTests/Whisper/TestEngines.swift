import Foundation
import SibylCore
import Testing
@testable import LocalEngines

/// What the engine tests need, and whether they run: they are skipped (with the reason) when
/// something is missing, unless `SIBYL_REQUIRE_ENGINES=1`, which makes them run and fail instead.
enum TestEngines {
    static let environment = ProcessInfo.processInfo.environment
    static var required: Bool { environment["SIBYL_REQUIRE_ENGINES"] == "1" }

    static let layout = EngineLayout()
    /// Two threads: the tests run where cores are few, and one transcription at a time.
    static let transcriber = WhisperTranscriber(layout: layout, threads: min(4, WhisperTranscriber.defaultThreads))

    /// whisper-server with the model loaded once, shared by the tests of this process (one
    /// transcription at a time); it is stopped when the test process exits.
    static let server = WhisperServerTranscriber(configuration: .init(
        layout: layout,
        logFile: FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-whisper-server-test-\(UUID().uuidString).log"),
        threads: min(4, WhisperTranscriber.defaultThreads)
    ))

    static var whisperEnabled: Bool {
        (transcriber.isInstalled && FileManager.default.isExecutableFile(atPath: layout.whisperServer.path)) || required
    }
    static let whisperMissing: Comment = """
        whisper-cli, whisper-server or the Whisper model is missing under \(EngineLayout().root.path): install them with \
        `sibyl models install stt` (SIBYL_REQUIRE_ENGINES=1 turns this skip into a failure)
        """

    /// The two ways Sibyl runs Whisper locally: a process per recording, and the resident server.
    enum Whisper: String, CaseIterable, CustomTestStringConvertible {
        case cli = "whisper-cli"
        case server = "whisper-server"

        var transcriber: any Transcriber {
            switch self {
            case .cli: TestEngines.transcriber
            case .server: TestEngines.server
            }
        }

        var testDescription: String { rawValue }
    }

    static let librivox = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data/librivox")
    static var librivoxEnabled: Bool { FileManager.default.fileExists(atPath: librivox.appendingPathComponent("transcription").path) || required }
    static let librivoxMissing: Comment = "the LibriVox clips of Debian's pocketsphinx-testdata are not installed (apt-get install pocketsphinx-testdata)"

    static var espeak: String? { executable(named: "espeak-ng") }
    static var espeakEnabled: Bool { espeak != nil || required }
    static let espeakMissing: Comment = "espeak-ng is not installed (apt-get install espeak-ng)"

    static func executable(named name: String) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        return path.split(separator: ":").map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs a program to completion and returns its standard output.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Data {
        guard let result = CommandRunner.capture(executable, arguments), result.status == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "\(executable) \(arguments.joined(separator: " ")) failed"])
        }
        return result.output
    }

    /// espeak-ng's rendering of `text` (22,050 Hz, 16-bit mono WAV).
    static func speak(_ text: String, voice: String = "en", speed: Int = 150) throws -> Data {
        let espeak = try #require(espeak, espeakMissing)
        let directory = try TemporaryDirectory()
        let output = directory.file("speech.wav")
        try run(espeak, ["-v", voice, "-s", String(speed), "-w", output.path, text])
        return try Data(contentsOf: output)
    }
}
