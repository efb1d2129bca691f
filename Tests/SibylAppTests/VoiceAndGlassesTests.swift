import Assistant
import Foundation
import Glasses
import OpenAITestServer
@testable import SibylApp
import SibylCore
import SibylTestSupport
import TestEvents
import Synchronization
import Testing

/// Spoken questions and questions from glasses, through the runtime: what was heard is asked as
/// any question is (the same answer path, saved and logged), and a recording with no words says so.
@Suite("Voice and glasses, through the runtime", .timeLimit(.minutes(10)))
struct VoiceAndGlassesTests {
    @Test("The spoken language: the setting, else the hint's language (a browser's en-US is en), auto detects")
    func spokenLanguage() {
        #expect(SibylRuntime.Voice.spokenLanguage(setting: nil, hint: "en-US") == "en")
        #expect(SibylRuntime.Voice.spokenLanguage(setting: nil, hint: "ko") == "ko")
        #expect(SibylRuntime.Voice.spokenLanguage(setting: "id", hint: "en-US") == "id")
        #expect(SibylRuntime.Voice.spokenLanguage(setting: "auto", hint: "en") == nil)
        #expect(SibylRuntime.Voice.spokenLanguage(setting: nil, hint: nil) == nil)
    }

    @Test(.enabled(if: Engines.espeakAndFFmpeg, "espeak-ng and ffmpeg are not installed"))
    func aSpokenQuestionIsTrimmedTranscribedAndAnswered() async throws {
        try await withTestRuntime(answer: ["Paris."], hearing: "What is the capital of France?") { runtime, model in
            let recording = try await runtime.voice.speak("What is the capital of France?", options: SpeechOptions(format: .wav))
            let padded = try Self.withSilence(recording, seconds: 2)
            let turn = try await runtime.voice.ask(padded, request: AskRequest("", conversation: .new(NewConversation(source: .web))))
            #expect(turn.transcript.text == "What is the capital of France?")
            guard case .answering(let live) = turn.ask.outcome else { Issue.record("not answered"); return }
            await live.waitUntilEnded()
            guard case .finished(let answer) = live.outcome else { Issue.record("the answer did not finish"); return }
            #expect(answer.text == "Paris.")
            let messages = try await runtime.conversations.messages(in: turn.ask.conversation.id)
            #expect(messages.first?.text == "What is the capital of France?", "the question saved is what was heard")
            // Only the speech went to speech-to-text: the silence around it was cut.
            let sent = try #require(model.server.requests(to: ScriptedModel.transcriptionPath).first)
            #expect(sent.body.count < padded.data.count, "\(sent.body.count) bytes sent of \(padded.data.count)")
        }
    }

    @Test(.enabled(if: Engines.espeakAndFFmpeg, "espeak-ng and ffmpeg are not installed"))
    func aRecordingWithNoWordsIsRefusedPlainly() async throws {
        try await withTestRuntime { runtime, model in
            let silence = AudioFile(data: AudioResampling.wav(pcm16: [Int16](repeating: 0, count: 32_000), sampleRate: 16_000).encoded(), format: .wav)
            await #expect(throws: AssistantError.noSpeech) {
                _ = try await runtime.voice.ask(silence, request: AskRequest("", conversation: .new(NewConversation(source: .web))))
            }
            #expect(model.streamedRequests.isEmpty, "no model is asked")
        }
    }

    @Test func aQuestionFromTheGlassesIsAnsweredInTheGlassesAndSaved() async throws {
        try await withTestRuntime(answer: ["Paris is the capital."], hearing: "What is the capital of France?") { runtime, model in
            let glasses = ScriptedGlasses()
            let connection = GlassesConnection(transport: glasses.transport, driver: glasses.driver)
            let session = try runtime.glasses.session(connection: connection)
            let running = Task { await session.run() }
            try await glasses.driver.waitUntilRunning()
            await glasses.driver.deliver(.spoken(audio: Data(repeating: 0x20, count: 8_000)))
            let shown = try await glasses.driver.nextShown()
            #expect(shown.text == "Paris is the capital.")
            #expect(!shown.isError)
            #expect(model.lastSystemPrompt?.isEmpty == false)
            let saved = try await runtime.conversations.list(source: .glasses).items
            #expect(saved.count == 1)
            await session.stop()
            await running.value
            // The operations log keeps the question with its stage times.
            let logged = try await runtime.admin.logs(LogQuery(operation: "glasses")).filter { $0.category == "glasses" }
            #expect(logged.map(\.message) == ["answered a question from the glasses"])
            #expect(logged.first?.details?.contains("\"languageModel\"") == true, "\(logged.first?.details ?? "")")
        }
    }

    @Test("An answer is spoken a sentence at a time: the first sentence's audio comes while the model still writes", .enabled(if: Engines.espeakAndFFmpeg, "espeak-ng and ffmpeg are not installed"))
    func anAnswerIsSpokenAsItIsWritten() async throws {
        try await withTestRuntime { runtime, model in
            let held = Gate()
            model.server.handle(ScriptedModel.chatPath) { request in
                request.json?["stream"] as? Bool == true
                    ? .chatStream(["The **first** sentence is here. ", "The second one ", "comes later.\n\n- 3"], holdingAfter: 1, until: { await held.pass() })
                    : .chatCompletion("A title")
            }
            let result = try await runtime.conversations.ask(AskRequest("Tell me two things.", conversation: .new(NewConversation(source: .cli))))
            guard case .answering(let turn) = result.outcome else { Issue.record("not answered"); return }
            var sentences = runtime.voice.speakAsWritten(turn, options: SpeechOptions(voice: "en-us")).makeAsyncIterator()
            let first = try #require(try await sentences.next())
            #expect(first.text == "The first sentence is here.", "spoken as shown, without the markdown")
            #expect(try WAVAudio(parsing: first.audio.data).duration > 0.5)
            try await held.reached()
            #expect(!turn.hasEnded, "the first sentence was spoken while the rest of the answer was held back")
            held.open()
            #expect(try await sentences.next()?.text == "The second one comes later.")
            #expect(try await sentences.next()?.text == "3", "the last words, with no full stop, are spoken when the answer ends")
            #expect(try await sentences.next() == nil)
        }
    }

    /// `recording` with `seconds` of silence before and after it.
    static func withSilence(_ recording: AudioFile, seconds: Int) throws -> AudioFile {
        let samples = try AudioResampling.speechPCM16(fromWAV: recording.data)
        let silence = [Int16](repeating: 0, count: AudioResampling.speechSampleRate * seconds)
        return AudioFile(data: AudioResampling.wav(pcm16: silence + samples + silence, sampleRate: AudioResampling.speechSampleRate).encoded(), format: .wav)
    }
}

/// Whether the local tools the voice tests need are here.
enum Engines {
    static var espeakAndFFmpeg: Bool {
        ["espeak-ng", "ffmpeg"].allSatisfy { tool in
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        }
    }
}

/// Glasses made of a transport that connects at once and a driver that runs no device app: a
/// test hands it what the wearer asks and reads what the glasses were told to show.
final class ScriptedGlasses: Sendable {
    let transport = Transport()
    let driver = Driver()

    final class Transport: GlassesTransport {
        let events: AsyncStream<GlassesTransportEvent>
        private let continuation: AsyncStream<GlassesTransportEvent>.Continuation

        init() {
            (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
        }

        func connect() async throws {
            continuation.yield(.connected(maximumWriteLength: 244))
        }

        func write(_ bytes: Data, to channel: GlassesChannel) async throws {}

        func disconnect() async {
            continuation.yield(.disconnected(reason: "disconnected by the test"))
        }
    }

    actor Driver: GlassesDriver {
        nonisolated let kind = GlassesKind.frame
        nonisolated let bootloaderName = "Scripted Update"
        nonisolated let expectedFirmware: String? = nil
        private var link: GlassesLink?
        private var running: [CheckedContinuation<Void, Never>] = []
        private var shown: [(text: String, isError: Bool)] = []
        private var shownWaiters: [CheckedContinuation<(text: String, isError: Bool), Never>] = []

        func prepare(_ link: GlassesLink) async throws -> String? { "v1" }

        func restartIntoBootloader(_ link: GlassesLink, timeout: Duration) async throws {
            throw GlassesError.transport("the scripted glasses have no bootloader")
        }

        func startApp(_ link: GlassesLink, firmware: String?) async throws -> GlassesDeviceInfo? {
            self.link = link
            for waiter in running { waiter.resume() }
            running.removeAll()
            return GlassesDeviceInfo(firmware: firmware, app: "scripted", uploaded: false, maximumWriteLength: link.maximumWriteLength)
        }

        func received(_ bytes: Data, on channel: GlassesChannel, link: GlassesLink) async {}
        func linkLost(_ reason: String) async {}

        func show(_ text: String, isError: Bool, link: GlassesLink) async throws {
            if shownWaiters.isEmpty { shown.append((text, isError)) } else { shownWaiters.removeFirst().resume(returning: (text, isError)) }
        }

        func showThinking(_ link: GlassesLink) async {}

        /// Waits until the connection has brought the (scripted) app up.
        func waitUntilRunning() async throws {
            if link != nil { return }
            await withCheckedContinuation { running.append($0) }
        }

        /// Hands the connection what the wearer asked.
        func deliver(_ request: GlassesRequest) async {
            await link?.deliver(request)
        }

        /// The next thing the glasses were told to show.
        func nextShown() async throws -> (text: String, isError: Bool) {
            if !shown.isEmpty { return shown.removeFirst() }
            return await withCheckedContinuation { shownWaiters.append($0) }
        }
    }
}
