import Foundation
import LocalEngines
import OpenAITestServer
import SibylCore
import Synchronization
import TestEvents
import TestFixtures
import Testing

/// `sibyl ask --voice` and `sibyl chat --voice` with a WAV file as the microphone: a PulseAudio
/// pipe source that `scripts/audio/virtual-microphone.sh` starts (scripts/test.sh does), local
/// whisper.cpp for speech-to-text, the scripted server for the answers, a null sink as the speaker.
@Suite(
    .timeLimit(.minutes(10)), .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["SIBYL_TEST_MICROPHONE"] != nil
            && EngineInstaller(layout: EngineLayout()).status().first { $0.name == "stt" }?.installed == true,
        "no virtual microphone (source scripts/audio/virtual-microphone.sh; start_virtual_microphone) or no local speech-to-text"
    )
)
struct VoiceCLITests {
    static let microphone = ProcessInfo.processInfo.environment["SIBYL_TEST_MICROPHONE"] ?? ""

    /// A spoken sentence with a second of silence before and after, as 16 kHz mono 16-bit samples.
    static func spoken(_ text: String) async throws -> Data {
        let wav = try await EspeakSynthesizer().synthesize(text, options: SpeechOptions(format: .wav, speed: 0.9)).data
        let samples = try AudioResampling.speechPCM16(fromWAV: wav)
        let silence = [Int16](repeating: 0, count: 16_000)
        return (silence + samples + silence).withUnsafeBytes { Data($0) }
    }

    /// Plays raw samples into the virtual microphone (the write paces itself: PulseAudio reads in real time).
    static func say(_ samples: Data) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                if let pipe = FileHandle(forWritingAtPath: microphone) {
                    pipe.write(samples)
                    try? pipe.close()
                }
                done.resume()
            }
        }
    }

    func runner(_ server: OpenAITestServer) throws -> CLIRunner {
        var cli = try CLIRunner(server: server, extra: ["SIBYL_STT_PROVIDER": "local", "SIBYL_TTS_PROVIDER": "local", "SIBYL_VOICE_WAIT_SECONDS": "20"])
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        for name in ["XDG_RUNTIME_DIR", "PULSE_SERVER"] { cli.environment[name] = ProcessInfo.processInfo.environment[name] }
        return cli
    }

    @Test func askByVoiceRecordsUntilSilenceTranscribesAndAnswers() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["Paris is the capital of France."])
            let cli = try runner(server)
            let speech = try await Self.spoken("What is the capital of France?")
            try await cli.withStarted(["ask", "--voice", "--no-speak"]) { running in
                try await running.waitForOutput(containing: "listening", inErrors: true)
                await Self.say(speech)
                let result = await running.finish()
                #expect(result.status == 0, "stderr: \(result.stderr)")
                #expect(result.stdout.contains("you said › "), "\(result.stdout)")
                #expect(result.stdout.lowercased().contains("capital"), "\(result.stdout)")
                #expect(result.stdout.contains("Paris is the capital of France."))
                // What was heard is the question the model got, and the exchange is saved.
                let asked = server.requests(to: chatPath).compactMap(\.json).first { $0["stream"] as? Bool == true }
                let question = ((asked?["messages"] as? [[String: Any]])?.last?["content"] as? String) ?? ""
                #expect(question.lowercased().contains("france"), "\(question)")
                #expect(try await cli.run(["conversations", "list", "--json"]).conversations?.first?["messageCount"] as? Int == 2)
                // The stages after the end of speech are shown: no audio, as none was spoken.
                #expect(result.stderr.contains("after you stopped: text"), "\(result.stderr)")
                #expect(!result.stderr.contains("first audio"), "\(result.stderr)")
            }
        }
    }

    @Test("The first sentence plays while the model still writes the rest")
    func theAnswerIsSpokenSentenceBySentence() async throws {
        try await OpenAITestServer.with { server in
            let held = Gate()
            server.handle(chatPath) { request in
                request.json?["stream"] as? Bool == true
                    ? .chatStream(["Paris is the capital of France. ", "It is on the Seine."], holdingAfter: 1, until: { await held.pass() })
                    : .chatCompletion("Capital")
            }
            let cli = try runner(server)
            let speech = try await Self.spoken("What is the capital of France?")
            try await cli.withStarted(["ask", "--voice"]) { running in
                try await running.waitForOutput(containing: "listening", inErrors: true)
                await Self.say(speech)
                try await held.reached()
                // The answer is held after its first sentence: that sentence is already playing on
                // the (virtual) speaker.
                try await Self.waitForPlayback(by: running.process.processIdentifier)
                held.open()
                let result = await running.finish()
                #expect(result.status == 0, "stderr: \(result.stderr)")
                #expect(result.stdout.contains("Paris is the capital of France. It is on the Seine."), "\(result.stdout)")
                #expect(result.stderr.contains("first audio"), "\(result.stderr)")
                #expect(!result.stderr.contains("could not play"), "\(result.stderr)")
            }
        }
    }

    @Test("Speaking over the answer (--barge-in) stops it and starts the next question")
    func speakingOverTheAnswerStopsIt() async throws {
        try await OpenAITestServer.with { server in
            let long = (1...12).map { "Sentence number \($0) of a long answer about France is here. " }
            server.handle(chatPath) { request in
                guard request.json?["stream"] as? Bool == true else { return .chatCompletion("France") }
                let question = ((request.json?["messages"] as? [[String: Any]])?.last?["content"] as? String ?? "").lowercased()
                return question.contains("spain") ? .chatStream(["Madrid."]) : .chatStream(long)
            }
            var cli = try runner(server)
            cli.environment["SIBYL_VOICE_WAIT_SECONDS"] = "3"
            let france = try await Self.spoken("What is the capital of France?")
            let spain = try await Self.spoken("And what is the capital of Spain?")
            try await cli.withStarted(["chat", "--voice", "--barge-in"]) { running in
                try await running.waitForOutput(containing: "listening", inErrors: true)
                await Self.say(france)
                // The long answer plays; the person speaks over it.
                try await running.waitForOutput(containing: "Sentence number 1")
                try await Self.waitForPlayback(by: running.process.processIdentifier)
                await Self.say(spain)
                try await running.waitForOutput(containing: "Madrid.")
                let result = await running.finish()
                #expect(result.status == 0, "stderr: \(result.stderr)")
                #expect(result.stderr.contains("you spoke: the answer stops"), "\(result.stderr)")
                let asked = server.requests(to: chatPath).compactMap(\.json).filter { $0["stream"] as? Bool == true }
                let questions = asked.compactMap { (($0["messages"] as? [[String: Any]])?.last?["content"] as? String)?.lowercased() }
                #expect(questions.count == 2, "\(questions)")
                #expect(questions.last?.contains("spain") == true, "the question spoken over the answer is asked whole: \(questions)")
                #expect(questions.last?.contains("what") == true, "its first words were heard too: \(questions)")
            }
        }
    }

    /// Waits until `sibyl` (the process `cli`) plays something on the sound server: a player it
    /// started is among the sound server's inputs. The sound server's events are followed
    /// (`pactl subscribe`) and the inputs looked at when one is added, and once the subscription is
    /// known to be live (an event this makes itself has come back), for a player that came before.
    /// A ceiling guards against a playback that never starts.
    static func waitForPlayback(by cli: Int32, within ceiling: Duration = .seconds(60)) async throws {
        let subscription = Process()
        subscription.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        subscription.arguments = ["subscribe"]
        let pipe = Pipe()
        subscription.standardOutput = pipe
        // Nothing of it may hold the test's own output open after the test.
        subscription.standardError = FileHandle.nullDevice
        subscription.standardInput = FileHandle.nullDevice
        let (lines, continuation) = AsyncStream<String>.makeStream()
        let pending = Mutex(Data())
        pipe.fileHandleForReading.readabilityHandler = { handle in
            let chunk = handle.availableData
            guard !chunk.isEmpty else {
                handle.readabilityHandler = nil
                continuation.finish()
                return
            }
            for line in pending.withLock({ buffer -> [String] in
                buffer.append(chunk)
                var complete: [String] = []
                while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                    complete.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                    buffer.removeSubrange(buffer.startIndex...newline)
                }
                return complete
            }) { continuation.yield(line) }
        }
        try subscription.run()
        defer {
            // pactl subscribe does not stop on SIGTERM.
            kill(subscription.processIdentifier, SIGKILL)
            subscription.waitUntilExit()
            continuation.finish()
        }
        let live = SubscriptionLive()
        let found = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                // A new input, or the marker module below (the subscription is live from then on).
                for await line in lines where line.contains("'new' on sink-input") || line.contains("'new' on module") {
                    if line.contains("on module") { live.heard() }
                    if try playing(by: cli) { return true }
                }
                return false
            }
            group.addTask {
                // Something the subscription will hear: a sink that plays nowhere, loaded and
                // unloaded, again until it has been heard (pactl may not have subscribed yet).
                let deadline = ContinuousClock.now + ceiling
                while !live.isHeard, ContinuousClock.now < deadline {
                    let module = try pactl(["load-module", "module-null-sink", "sink_name=sibyl_test_marker"]).trimmingCharacters(in: .whitespacesAndNewlines)
                    if !module.isEmpty { _ = try? pactl(["unload-module", module]) }
                    try await Task.sleep(for: .seconds(1))
                }
                try await Task.sleep(until: deadline)
                return false
            }
            let first = try await group.next() ?? false
            group.cancelAll()
            return first
        }
        if !found { Issue.record("sibyl played nothing within \(ceiling)") }
    }

    /// Whether the subscription has heard its marker.
    final class SubscriptionLive: Sendable {
        private let state = Mutex(false)
        func heard() { state.withLock { $0 = true } }
        var isHeard: Bool { state.withLock { $0 } }
    }

    /// Whether a player started by `cli` is among the sound server's inputs now.
    static func playing(by cli: Int32) throws -> Bool {
        let players = try pactl(["list", "sink-inputs"]).split(separator: "\n").compactMap { line -> Int32? in
            guard line.contains("application.process.id") else { return nil }
            return Int32(line.split(separator: "\"").dropFirst().first ?? "")
        }
        return players.contains { ProcessTable.parent(of: $0) == cli }
    }

    /// What `pactl` prints.
    static func pactl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pactl")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return output
    }

    @Test func chatByVoiceSpeaksTheAnswerAndStopsWhenNobodySpeaks() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["It is Paris."])
            var cli = try runner(server)
            cli.environment["SIBYL_VOICE_WAIT_SECONDS"] = "3"
            let speech = try await Self.spoken("What is the capital of France?")
            try await cli.withStarted(["chat", "--voice"]) { running in
                try await running.waitForOutput(containing: "listening", inErrors: true)
                await Self.say(speech)
                let result = await running.finish()
                #expect(result.status == 0, "stderr: \(result.stderr)")
                #expect(result.stdout.contains("It is Paris."))
                // The answer was spoken (to the virtual speaker): no playback error was reported.
                #expect(!result.stderr.contains("could not play"), "\(result.stderr)")
                #expect(result.stderr.contains("first audio"), "\(result.stderr)")
                #expect(result.stderr.contains("no speech heard"))
                #expect(result.stdout.contains("nobody spoke twice in a row"))
            }
        }
    }
}
