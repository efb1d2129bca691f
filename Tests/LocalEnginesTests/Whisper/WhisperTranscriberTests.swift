import Foundation
import SibylCore
import SibylTestSupport
import Testing
@testable import LocalEngines

/// The transcriber's contract with whisper-cli, checked against stand-in scripts (no engine needed).
@Suite("Whisper transcriber (stand-in whisper-cli)", .timeLimit(.minutes(10)))
struct WhisperTranscriberTests {
    /// A shell script playing whisper-cli, and a placeholder model.
    struct FakeEngine {
        let directory: TemporaryDirectory
        let transcriber: WhisperTranscriber

        init(script: String, threads: Int = 3) throws {
            directory = try TemporaryDirectory()
            let executable = directory.file("whisper-cli")
            try Data("#!/bin/sh\n\(script)\n".utf8).write(to: executable)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: executable.path)
            let model = directory.file("model.bin")
            try Data("ggml".utf8).write(to: model)
            transcriber = WhisperTranscriber(executable: executable, model: model, threads: threads)
        }

        /// A script that records its arguments and writes `json` where `--output-file` points.
        static func writing(_ json: String, argumentsTo record: String = "args.txt") throws -> FakeEngine {
            try FakeEngine(script: """
                dir="$(dirname "$0")"
                for a in "$@"; do printf '%s\\n' "$a"; done > "$dir/\(record)"
                out=""; prev=""
                for a in "$@"; do [ "$prev" = "--output-file" ] && out="$a"; prev="$a"; done
                cat > "$out.json" <<'JSON'
                \(json)
                JSON
                """)
        }
    }

    static let tone: AudioFile = {
        let samples = (0..<8_000).map { Float(0.3 * sin(Double($0) * 0.2)) }
        return AudioFile(data: AudioResampling.wav(pcm16: AudioResampling.pcm16(samples), sampleRate: 8_000).encoded(), format: .wav)
    }()

    static let sampleJSON = """
        {
        \t"systeminfo": "AVX = 1 | ",
        \t"params": {"model": "m", "language": "auto", "translate": false},
        \t"result": {
        \t\t"language": "de"
        \t},
        \t"transcription": [
        \t\t{"timestamps": {"from": "00:00:00,000", "to": "00:00:02,000"}, "offsets": {"from": 0, "to": 2000}, "text": " Guten Morgen, \\"Welt\\"."},
        \t\t{"offsets": {"from": 2000, "to": 3000}, "text": " [BLANK_AUDIO]"},
        \t\t{"offsets": {"from": 3000, "to": 4000}, "text": " Tab\there."}
        \t]
        }
        """

    @Test("The JSON transcript is parsed: segments joined, silence markers dropped, language and duration kept")
    func parsesOutput() async throws {
        let engine = try FakeEngine.writing(Self.sampleJSON)
        let result = try await engine.transcriber.transcribe(Self.tone, options: TranscriptionOptions())
        #expect(result.text == "Guten Morgen, \"Welt\". Tab\there.")
        #expect(result.language == "de")
        #expect(result.duration == 1)
    }

    @Test("Options become whisper-cli arguments")
    func arguments() async throws {
        let engine = try FakeEngine.writing(Self.sampleJSON)
        _ = try await engine.transcriber.transcribe(
            Self.tone, options: TranscriptionOptions(translate: true, language: " FR ", prompt: "Sibyl, Monocle", temperature: 0.2)
        )
        let arguments = try String(contentsOf: engine.directory.file("args.txt"), encoding: .utf8).split(separator: "\n").map(String.init)
        func value(after flag: String) -> String? { arguments.firstIndex(of: flag).map { arguments[$0 + 1] } }
        #expect(value(after: "--model") == engine.directory.file("model.bin").path)
        #expect(value(after: "--language") == "fr")
        #expect(value(after: "--threads") == "3")
        #expect(value(after: "--prompt") == "Sibyl, Monocle")
        #expect(value(after: "--temperature") == "0.2")
        #expect(arguments.contains("--translate"))
        #expect(arguments.contains("--output-json"))
        let input = try #require(value(after: "--file"))
        #expect(input.hasSuffix("audio.wav"))
        // The temporary files are gone afterwards.
        #expect(!FileManager.default.fileExists(atPath: input))

        let plain = engine.transcriber.arguments(input: URL(fileURLWithPath: "/a.wav"), outputBase: URL(fileURLWithPath: "/o"), options: TranscriptionOptions())
        #expect(plain.contains("auto"))
        #expect(!plain.contains("--translate"))
        #expect(!plain.contains("--prompt"))
    }

    @Test("Subtitle formats return whisper-cli's SRT or WebVTT file", arguments: [TranscriptFormat.srt, .vtt])
    func subtitles(format: TranscriptFormat) async throws {
        let engine = try FakeEngine(script: """
            prev=""; for a in "$@"; do [ "$prev" = "--output-file" ] && out="$a"; prev="$a"; done
            echo '{"result": {"language": "en"}, "transcription": [{"text": " Hi."}]}' > "$out.json"
            for a in "$@"; do
              [ "$a" = "--output-srt" ] && printf '1\n00:00:00,000 --> 00:00:01,000\n Hi.\n\n' > "$out.srt"
              [ "$a" = "--output-vtt" ] && printf 'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n Hi.\n\n' > "$out.vtt"
            done
            exit 0
            """)
        let result = try await engine.transcriber.transcribe(Self.tone, options: TranscriptionOptions(format: format))
        #expect(result.text == (format == .srt ? "1\n00:00:00,000 --> 00:00:01,000\n Hi.\n\n" : "WEBVTT\n\n00:00:00.000 --> 00:00:01.000\n Hi.\n\n"))
        #expect(result.language == "en")
        let plain = try await engine.transcriber.transcribe(Self.tone, options: TranscriptionOptions())
        #expect(plain.text == "Hi.")
    }

    @Test("The audio handed to whisper-cli is 16 kHz mono 16-bit")
    func inputFormat() async throws {
        let engine = try FakeEngine(script: """
            prev=""; for a in "$@"; do [ "$prev" = "--file" ] && cp "$a" "$(dirname "$0")/seen.wav"; [ "$prev" = "--output-file" ] && out="$a"; prev="$a"; done
            echo '{"result": {"language": "en"}, "transcription": []}' > "$out.json"
            """)
        let stereo = WAVAudio(sampleRate: 44_100, channels: 2, bitsPerSample: 16, samples: Data(count: 44_100 * 4))
        let result = try await engine.transcriber.transcribe(AudioFile(data: stereo.encoded(), format: .wav), options: TranscriptionOptions())
        #expect(result.text.isEmpty)
        #expect(result.duration == 1)
        let seen = try WAVAudio(parsing: Data(contentsOf: engine.directory.file("seen.wav")))
        #expect(seen.sampleRate == 16_000)
        #expect(seen.channels == 1)
        #expect(seen.bitsPerSample == 16)
        #expect(seen.samples.count == 32_000)
    }

    @Test("A failing whisper-cli reports its status and the end of its error output")
    func processFailure() async throws {
        let engine = try FakeEngine(script: "echo 'whisper_model_load: loading model' >&2; echo 'error: failed to initialize whisper context' >&2; exit 3")
        await #expect(throws: WhisperError.processFailed(status: 3, stderr: "whisper_model_load: loading model\nerror: failed to initialize whisper context")) {
            try await engine.transcriber.transcribe(Self.tone, options: TranscriptionOptions())
        }
    }

    @Test("A crash is reported with its signal")
    func crash() async throws {
        let engine = try FakeEngine(script: "echo 'ggml: starting' >&2; kill -ILL $$")
        await #expect(throws: WhisperError.crashed(signal: 4, stderr: "ggml: starting")) {
            try await engine.transcriber.transcribe(Self.tone, options: TranscriptionOptions())
        }
        #expect(WhisperError.crashed(signal: 4, stderr: "").errorDescription?.contains("another CPU") == true)
    }

    @Test("An unknown language and a missing transcript are told apart")
    func missingOutput() async throws {
        let unknown = try FakeEngine(script: "echo \"error: unknown language 'xx'\" >&2; exit 0")
        await #expect(throws: WhisperError.unknownLanguage("xx")) {
            try await unknown.transcriber.transcribe(Self.tone, options: TranscriptionOptions(language: "xx"))
        }
        let silent = try FakeEngine(script: "echo 'nothing written' >&2")
        await #expect(throws: WhisperError.missingOutput(stderr: "nothing written")) {
            try await silent.transcriber.transcribe(Self.tone, options: TranscriptionOptions())
        }
        let garbage = try FakeEngine.writing("not json")
        await #expect(throws: WhisperError.self) {
            try await garbage.transcriber.transcribe(Self.tone, options: TranscriptionOptions())
        }
    }

    @Test("A missing program or model says how to install it")
    func notInstalled() async throws {
        let engine = try FakeEngine(script: "exit 0")
        let noProgram = WhisperTranscriber(executable: engine.directory.file("nope"), model: engine.transcriber.model)
        await #expect(throws: LocalEngineError.notInstalled(component: "stt", missing: engine.directory.file("nope").path)) {
            try await noProgram.transcribe(Self.tone, options: TranscriptionOptions())
        }
        let noModel = WhisperTranscriber(executable: engine.transcriber.executable, model: engine.directory.file("missing.bin"))
        do {
            _ = try await noModel.transcribe(Self.tone, options: TranscriptionOptions())
            Issue.record("expected an error")
        } catch let error as LocalEngineError {
            #expect(error == .notInstalled(component: "stt", missing: engine.directory.file("missing.bin").path))
            #expect(error.remedy == .install(component: "stt"))
            #expect(error.recoverySuggestion?.contains("Install the stt component") == true)
        }
        #expect(!noModel.isInstalled)
        #expect(engine.transcriber.isInstalled)
    }

    @Test("Audio that is not PCM WAV is refused before whisper-cli runs")
    func undecodable() async throws {
        let engine = try FakeEngine(script: "touch \"$(dirname \"$0\")/ran\"")
        let mp3 = AudioFile(data: Data("ID3\u{4}\0\0\0\0\0\0 not decodable here".utf8), format: .mp3)
        await #expect(throws: WhisperError.unsupportedAudio(format: .mp3, reason: "only WAV is decoded locally")) {
            try await engine.transcriber.transcribe(mp3, options: TranscriptionOptions())
        }
        let raw = AudioFile(data: Data(count: 100), format: .pcm)
        await #expect(throws: WhisperError.self) { try await engine.transcriber.transcribe(raw, options: TranscriptionOptions()) }
        var adpcm = WAVAudio(sampleRate: 8_000, channels: 1, bitsPerSample: 4, samples: Data(count: 100)).encoded()
        adpcm[20] = 0x11  // IMA ADPCM format tag
        do {
            _ = try await engine.transcriber.transcribe(AudioFile(data: adpcm, format: .wav), options: TranscriptionOptions())
            Issue.record("expected an error")
        } catch let error as WhisperError {
            guard case .unsupportedAudio(.wav, let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(reason.contains("format tag 17"))
            #expect(error.recoverySuggestion?.contains("WAV") == true)
        }
        #expect(!FileManager.default.fileExists(atPath: engine.directory.file("ran").path))
    }

    @Test("Empty audio gives an empty transcript without running whisper-cli")
    func emptyAudio() async throws {
        let engine = try FakeEngine(script: "exit 9")
        let empty = AudioFile(data: WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data()).encoded(), format: .wav)
        let result = try await engine.transcriber.transcribe(empty, options: TranscriptionOptions(language: "en"))
        #expect(result == Transcription(text: "", language: "en", duration: 0))
    }

    @Test("Cancelling the task terminates whisper-cli")
    func cancellation() async throws {
        // The stand-in would run for 10 minutes: an answer before that can only come from the cancel.
        // It writes its id whole (a rename) before it turns into `sleep`.
        let engine = try FakeEngine(script: "dir=\"$(dirname \"$0\")\"; echo $$ > \"$dir/pid.new\"; mv \"$dir/pid.new\" \"$dir/pid\"; exec sleep 600")
        let transcriber = engine.transcriber
        let task = Task { try await transcriber.transcribe(Self.tone, options: TranscriptionOptions()) }
        let pidFile = engine.directory.file("pid")
        // Nothing tells the test when the child has started: it looks for the file until it is there.
        try await eventually(within: .seconds(300), "the stand-in's pid file") { FileManager.default.fileExists(atPath: pidFile.path) }
        task.cancel()
        // What the code controls is that the cancel reaches the child (checked below); how quickly a
        // busy machine runs the teardown is not, so the ceiling only catches a cancel that was lost.
        let outcome = try await waitFor("the transcription to end after the cancel", within: .seconds(300)) { await task.result }
        #expect(throws: CancellationError.self) { try outcome.get() }
        let pid = try #require(Int32(String(contentsOf: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(kill(pid, 0) != 0, "whisper-cli (pid \(pid)) is still running")
    }

    @Test("Cancelling before the program starts never runs it")
    func cancelledEarly() async throws {
        let engine = try FakeEngine(script: "touch \"$(dirname \"$0\")/ran\"; sleep 5")
        let transcriber = engine.transcriber
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await transcriber.transcribe(Self.tone, options: TranscriptionOptions())
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!FileManager.default.fileExists(atPath: engine.directory.file("ran").path))
    }

    @Test("whisper-cli's JSON is repaired: raw control characters and broken UTF-8")
    func jsonRepair() throws {
        var json = Data(#"{"result": {"language": "ja"}, "transcription": [{"text": " a"#.utf8)
        json.append(contentsOf: [0x0A, 0xE3, 0x81])  // a raw newline, then a character cut in half
        json.append(contentsOf: Array(#"b"}, {"text": "\\c"}]}"#.utf8))
        let output = try WhisperCLIOutput(json: json)
        #expect(output.text == "a\n\u{FFFD}b\\c")
        #expect(output.result?.language == "ja")
    }
}
