import Assistant
import Foundation
import LocalEngines
import Glasses
import Monocle
import MonocleEmulator
import OpenAITestServer
@testable import SibylApp
import SibylCore
import SibylTestSupport
import Testing

/// Spoken questions through the virtual glasses, answered by Sibyl.
@Suite(.timeLimit(.minutes(30)), .serialized, .enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct GlassesEndToEndTests {
    static let enginesReady = EngineInstaller(layout: EngineLayout()).status().filter { ["chat", "stt", "tts"].contains($0.name) }.allSatisfy(\.installed)
        || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"

    /// What a glasses session reported, as it reports it.
    final class EventLog<Event: Sendable>: Sendable {
        let all = Observed<[Event]>([])

        func record(_ event: Event) { all.update { $0.append(event) } }

        /// The first event `pick` takes, waiting for it (woken by each event) up to a ceiling against hangs.
        func next<T: Sendable>(timeout: Duration = .seconds(180), _ pick: @escaping @Sendable (Event) -> T?) async throws -> T {
            do {
                return try await all.wait(for: "a glasses event", within: timeout) { events in
                    for event in events { if let value = pick(event) { return value } }
                    return nil
                }
            } catch is WaitedInVain {
                throw NoSuchEvent(timeout: timeout, seen: all.value.map { String(describing: $0) })
            }
        }
    }

    /// What the glasses assistant reported.
    typealias Events = EventLog<GlassesEvent>

    /// The awaited event did not come; what did, so that a failure says where the question went.
    struct NoSuchEvent: Error, CustomStringConvertible {
        let timeout: Duration
        let seen: [String]

        var description: String {
            "the awaited glasses event did not come within \(timeout); events so far: \(seen.isEmpty ? "none" : seen.joined(separator: " · "))"
        }
    }

    /// A runtime in a home of its own on the local engines (greedy, short answers), with
    /// `environment` on top; shut down after `body`, which gets the home too.
    static func withRuntime(environment: [String: String], _ body: (SibylRuntime, URL) async throws -> Void) async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-glasses-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: home) }
        var env = [
            "SIBYL_HOME": home.path, "SIBYL_ENGINES": EngineLayout().root.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin",
            "SIBYL_CHAT_TEMPERATURE": "0", "SIBYL_CHAT_MAX_TOKENS": "40",
        ]
        env.merge(environment) { $1 }
        let runtime = try SibylRuntime(environment: env)
        do {
            try await body(runtime, home)
        } catch {
            await runtime.shutdown()
            throw error
        }
        await runtime.shutdown()
    }

    /// Runs Sibyl's glasses assistant on a virtual Monocle with the given runtime settings.
    static func withAssistant(
        environment: [String: String],
        options: GlassesAssistant.Options = GlassesAssistant.Options(),
        visionModel: String? = nil,
        _ body: (MonocleEmulator, Events, SibylRuntime) async throws -> Void
    ) async throws {
        try await withRuntime(environment: environment) { runtime, _ in
            try await TestGlasses.with { glasses in
                let connection = try MonocleConnectionTests.connection(EmulatorTransport(emulator: glasses))
                var options = options
                options.visionModel = visionModel
                let assistant = GlassesAssistant(connection: connection, asker: runtime.conversations, transcriber: try runtime.providers.transcriber(), options: options)
                let events = Events()
                let serving = Task { await connection.run() }
                let answering = Task { await assistant.run { events.record($0) } }
                try await withTeardown {
                    _ = try await glasses.waitForScreen(timeout: .seconds(300)) { $0.lines.contains { $0.lowercased().contains("tap") } }
                    try await body(glasses, events, runtime)
                } teardown: {
                    await connection.stop()
                    serving.cancel()
                    answering.cancel()
                    _ = try? await waitFor("the glasses' tasks to end", within: .seconds(60)) { await serving.value; await answering.value }
                }
            }
        }
    }

    /// Runs `body` with a scripted model server (a streamed request is answered with `answer` in
    /// pieces, any other, the title, with `title`) and the environment that points Sibyl's chat at
    /// it; the server is stopped afterwards whatever happens.
    static func withScriptedModel(answer: [String], title: String, _ body: (OpenAITestServer, [String: String]) async throws -> Void) async throws {
        try await OpenAITestServer.with { server in
            server.handle("/v1/chat/completions") { request in
                request.json?["stream"] as? Bool == true ? .chatStream(answer) : .chatCompletion(title)
            }
            try await body(server, ["SIBYL_CHAT_BASE_URL": server.baseURL, "SIBYL_CHAT_MODEL": "test-model", "SIBYL_MAX_RETRIES": "0"])
        }
    }

    /// The first streamed chat request the scripted model received.
    static func firstStreamedRequest(to server: OpenAITestServer) throws -> [String: Any] {
        try #require(server.requests(to: "/v1/chat/completions").compactMap(\.json).first { $0["stream"] as? Bool == true })
    }

    /// Speech a little slower than espeak-ng's default, as people speak to a voice assistant: the
    /// glasses' 8-bit, 8 kHz microphone leaves Whisper little margin with fast synthetic speech.
    static func speech(_ text: String, voice: String? = nil) async throws -> Data {
        try await EspeakSynthesizer().synthesize(text, options: SpeechOptions(voice: voice, format: .wav, speed: 0.8)).data
    }

    @Test(.enabled(if: enginesReady, "the local chat, speech-to-text and espeak-ng engines are not installed"))
    func aSpokenQuestionIsAnsweredOfflineInTheDisplayAndSaved() async throws {
        try await Self.withAssistant(environment: [:]) { glasses, events, runtime in
            try await glasses.speak(wav: Self.speech("What is the capital of France?"))
            let before = await glasses.displayLog.count
            await glasses.tap()
            let (question, answer, timings) = try await events.answered()
            #expect(question.lowercased().contains("capital"), "\(question)")
            #expect(answer.contains("Paris"), "\(answer)")
            let shown = try await glasses.waitForScreen(after: before) { $0.lines.joined(separator: " ").contains("Paris") }
            #expect(shown.texts.allSatisfy { $0.color != DisplayFrame.Object.red })
            print(String(
                format: "[monocle] one spoken question: audio transfer %.0f ms, conversion %.1f ms, speech-to-text %.0f ms, LLM %.0f ms, display %.1f ms; Sibyl's own overhead %.1f ms",
                Self.ms(timings.audioTransfer), Self.ms(timings.audioConversion), Self.ms(timings.speechToText), Self.ms(timings.languageModel), Self.ms(timings.display), Self.ms(timings.overhead)
            ))
            // The overhead is a benchmark figure (`SibylBenchmarks monocle` measures it on a quiet
            // machine), printed here, never a bound of this test.
            // The exchange is kept like any other conversation, marked as coming from the glasses.
            let conversations = try await runtime.store.conversations(source: .glasses)
            #expect(conversations.count == 1)
            let messages = try await runtime.store.messages(in: try #require(conversations.first).conversation.id)
            #expect(messages.map(\.role) == [.user, .assistant])
            #expect(messages.last?.status == .complete)
        }
    }

    @Test(.enabled(if: enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func translatorModeTranslatesWhatTheWearerSays() async throws {
        try await Self.withScriptedModel(answer: ["Good morning, ", "the weather is nice today."], title: "Weather") { server, environment in
            var options = GlassesAssistant.Options()
            options.mode = .translator(target: "English")
            options.language = "de"
            try await Self.withAssistant(environment: environment, options: options) { glasses, events, _ in
                try await glasses.speak(wav: Self.speech("Guten Morgen, das Wetter ist heute schön.", voice: "de"))
                await glasses.tap()
                let heard = try await events.next { if case .heard(let text) = $0 { text } else { nil } }
                #expect(heard.lowercased().contains("morgen"), "\(heard)")
                _ = try await glasses.waitForScreen { $0.lines.joined(separator: " ").contains("weather is nice today") }
                let request = try Self.firstStreamedRequest(to: server)
                let messages = try #require(request["messages"] as? [[String: Any]])
                #expect((messages.first?["content"] as? String)?.contains("Translate each message the user sends into English") == true)
                #expect((messages.last?["content"] as? String)?.lowercased().contains("morgen") == true)
            }
        }
    }

    @Test(.enabled(if: enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func aTapWhileThinkingCancelsTheAnswer() async throws {
        let cancelled = Gate()
        try await OpenAITestServer.with { server in
            server.handle("/v1/chat/completions") { request in
                // The model thinks until the wearer has cancelled (held at a gate the test opens).
                request.json?["stream"] as? Bool == true ? .held(.chatStream(["Too late."]), beforeChunk: 0, gate: { await cancelled.pass() }) : .chatCompletion("Title")
            }
            defer { cancelled.open() }
            try await Self.withAssistant(environment: ["SIBYL_CHAT_BASE_URL": server.baseURL, "SIBYL_CHAT_MODEL": "test-model", "SIBYL_MAX_RETRIES": "0"]) { glasses, events, runtime in
                try await glasses.speak(wav: Self.speech("What time is it in Tokyo?"))
                await glasses.tap()
                _ = try await events.next { if case .heard(let text) = $0 { text } else { nil } }
                // The model is still writing: a tap on the glasses cancels.
                await glasses.tap()
                _ = try await events.next { if case .cancelled = $0 { true } else { nil } }
                _ = try await glasses.waitForScreen { $0.lines.contains("Cancelled") || $0.lines.contains { $0.contains("Cancelled") } }
                // The store tells no one when the answer is saved as cancelled: looked at until it is.
                var status: MessageStatus?
                try await eventually("the answer saved as cancelled; it is \(String(describing: status))") {
                    let conversation = try await runtime.store.conversations(source: .glasses).first
                    if let conversation { status = try await runtime.store.messages(in: conversation.conversation.id).last?.status }
                    return status == .cancelled
                }
                #expect(await glasses.sentMessages.contains(Data("can:".utf8)))
                // `cancelled` comes once the cancelled answer is over: what it sent the glasses is all it sends.
                #expect(await glasses.receivedMessages.allSatisfy { !String(decoding: $0, as: UTF8.self).contains("Too late") })
            }
        }
    }

    @Test(.enabled(if: enginesReady, "the local speech-to-text and espeak-ng engines are not installed"))
    func aPhotoAndItsSpokenQuestionGoToTheVisionModel() async throws {
        try await Self.withScriptedModel(answer: ["A red ", "bicycle."], title: "Photo") { server, environment in
            let jpeg = Data([0xFF, 0xD8, 0xFF, 0xE0] + (0..<3_000).map { UInt8(truncatingIfNeeded: $0 &* 37) } + [0xFF, 0xD9])
            try await Self.withAssistant(
                environment: environment,
                visionModel: "test-vision-model"
            ) { glasses, events, runtime in
                await glasses.photo(jpeg: jpeg)
                try await glasses.speak(wav: Self.speech("What is in this picture?"))
                await glasses.hold()
                let answer = try await events.next { if case .answered(_, let answer, _) = $0 { answer } else { nil } }
                #expect(answer == "A red bicycle.")
                _ = try await glasses.waitForScreen { $0.lines.joined(separator: " ").contains("A red bicycle.") }
                let request = try Self.firstStreamedRequest(to: server)
                #expect(request["model"] as? String == "test-vision-model")
                let question = try #require((request["messages"] as? [[String: Any]])?.last)
                let parts = try #require(question["content"] as? [[String: Any]])
                let text = parts.first { $0["type"] as? String == "text" }?["text"] as? String ?? ""
                #expect(text.lowercased().contains("picture"), "\(text)")
                let image = parts.first { $0["type"] as? String == "image_url" }?["image_url"] as? [String: Any]
                // The photo arrived whole over the data channel, in chunks that fit the link.
                #expect(image?["url"] as? String == "data:image/jpeg;base64," + jpeg.base64EncodedString())
                let saved = try await runtime.store.messages(in: try #require(runtime.store.conversations(source: .glasses).first).conversation.id)
                #expect(saved.first?.attachments.first?.data == jpeg)
            }
        }
    }

    @Test func aPhotoWithoutAVisionModelGetsAClearMessageInRed() async throws {
        try await OpenAITestServer.with { server in
            try await Self.withAssistant(environment: ["SIBYL_CHAT_BASE_URL": server.baseURL, "SIBYL_CHAT_MODEL": "test-model", "SIBYL_STT_BASE_URL": server.baseURL]) { glasses, events, _ in
                await glasses.photo(jpeg: Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(repeating: 0x42, count: 600) + [0xFF, 0xD9]))
                try await glasses.speak(wav: WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data(count: 32_000)).encoded())
                await glasses.hold()
                let shown = try await events.next { if case .failed(let shown, _) = $0 { shown } else { nil } }
                #expect(shown.contains("vision model"))
                let frame = try await glasses.waitForScreen { $0.lines.joined(separator: " ").contains("vision") }
                #expect(frame.texts.contains { $0.color == DisplayFrame.Object.red })
                // The photo went over the data channel before the prompt.
                let commands = await glasses.sentMessages.compactMap { AppMessage(packet: $0)?.command }
                #expect(commands.contains(.imageStart) && commands.contains(.imageData) && commands.contains(.imageEnd))
            }
        }
    }

    static func ms(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1_000 + Double(duration.components.attoseconds) / 1e15
    }
}

extension Optional {
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}

extension GlassesEndToEndTests.EventLog<GlassesEvent> {
    /// The first answer shown: what was heard, the answer and its timings.
    func answered() async throws -> (question: String, answer: String, timings: GlassesTimings) {
        try await next { event in
            if case .answered(let question, let answer, let timings) = event { (question, answer, timings) } else { nil }
        }
    }
}
