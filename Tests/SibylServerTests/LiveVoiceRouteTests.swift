import Foundation
import HTTPTypes
import HummingbirdTesting
import HummingbirdWSClient
import LocalEngines
import Logging
import NIOCore
import SibylCore
import Testing
@testable import SibylServer

/// The live voice WebSocket with the local engines (Silero VAD, Moonshine, Piper or espeak-ng) and
/// the scripted chat model: the sound goes in as it is spoken, the words come back as they form,
/// then the answer.
@Suite(
    "A spoken question streamed over a WebSocket", .timeLimit(.minutes(10)), .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().filter { ["stt", "tts"].contains($0.name) }.allSatisfy(\.installed)
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local speech-to-text and text-to-speech are not installed"
    )
)
struct LiveVoiceRouteTests {
    /// A message from the server: its event name and data.
    struct Message {
        var event: String
        var data: [String: Any]
    }

    static func decode(_ frame: WebSocketMessage) -> Message? {
        guard case .text(let text) = frame,
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              let event = object["event"] as? String else { return nil }
        return Message(event: event, data: object["data"] as? [String: Any] ?? [:])
    }

    /// What the page's socket received, kept for the test to read after it closes.
    final class Inbox: @unchecked Sendable {
        private let lock = NSLock()
        private var kept: [Message] = []
        func add(_ message: Message) { lock.withLock { kept.append(message) } }
        var messages: [Message] { lock.withLock { kept } }
    }

    /// A page's socket: the server's messages carry spoken sentences, far over the default 16 kB.
    static let page = WebSocketClientConfiguration(maxFrameSize: 1 << 24)

    /// Sends samples as a page does, in messages of 100 ms (the server takes up to 16 kB each).
    static func send(_ samples: ArraySlice<Int16>, to outbound: WebSocketOutboundWriter) async throws {
        for start in stride(from: samples.startIndex, to: samples.endIndex, by: 1_600) {
            try await outbound.write(.binary(bytes(samples[start..<min(samples.endIndex, start + 1_600)])))
        }
    }

    /// `samples` as little-endian bytes.
    static func bytes(_ samples: ArraySlice<Int16>) -> ByteBuffer {
        var buffer = ByteBuffer()
        for sample in samples { buffer.writeInteger(sample, endianness: .little) }
        return buffer
    }

    @Test("The words show while the person speaks; the end is heard in the sound; the answer is spoken a sentence at a time")
    func aQuestionSpokenLive() async throws {
        try await withServerFixture(environment: KnowledgeAndMediaRoutesTests.local, testing: .live) { fixture in
            fixture.model.handle(chatPath) { request in
                request.json?["stream"] as? Bool == true ? .chatStream(["Paris is the capital. ", "It is on the Seine."]) : .chatCompletion("Capital")
            }
            let conversation = try await TurnRoutesTests.conversation(fixture.client)
            let wav = try await EspeakSynthesizer().synthesize("What is the capital of France, the country in Europe?", options: SpeechOptions(format: .wav, speed: 0.9)).data
            let speech = try AudioResampling.speechPCM16(fromWAV: wav)
            let silence = [Int16](repeating: 0, count: 16_000)
            let sound = silence + speech + silence + silence
            let port = try #require(fixture.client.port)
            let url = "ws://127.0.0.1:\(port)/api/v1/conversations/\(conversation)/voice/live?speak=sentences&languageHint=en"
            let inbox = Inbox()
            try await WebSocketClient.connect(url: url, configuration: Self.page, logger: Logger(label: "test-page")) { inbound, outbound, _ in
                var messages = inbound.messages(maxSize: 1 << 24).makeAsyncIterator()
                #expect(try await messages.next().flatMap(Self.decode)?.event == "listening")
                // The silence and the first half of the speech, 100 ms at a time; then the page
                // waits for the words so far before it sends the rest.
                let half = 16_000 + speech.count / 2
                try await Self.send(sound[0..<half], to: outbound)
                while let frame = try await messages.next() {
                    guard let message = Self.decode(frame) else { continue }
                    inbox.add(message)
                    if message.event == "partial" { break }
                }
                try await Self.send(sound[half...], to: outbound)
                while let frame = try await messages.next() {
                    guard let message = Self.decode(frame) else { continue }
                    inbox.add(message)
                    if message.event == "timings" || message.event == "error" { break }
                }
            }
            let received = inbox.messages
            let events = received.map(\.event)
            let partial = try #require(received.first { $0.event == "partial" }?.data["text"] as? String)
            #expect(partial.lowercased().contains("what"), "the first words, before the rest was sent: \(partial)")
            let transcript = try #require(received.first { $0.event == "transcript" }?.data)
            #expect((transcript["text"] as? String)?.lowercased().contains("europe") == true, "the whole question: \(transcript)")
            #expect(events.firstIndex(of: "partial")! < events.firstIndex(of: "transcript")!)
            #expect(received.filter { $0.event == "spoken" }.compactMap { $0.data["text"] as? String } == ["Paris is the capital.", "It is on the Seine."])
            #expect(events.contains("finished"))
            let timings = try #require(received.last { $0.event == "timings" }?.data)
            #expect(timings["transcribe"] as? Int ?? 0 > 0, "from the end of speech to the transcript: \(timings)")
            #expect(timings["firstAudio"] as? Int != nil)
            // Saved as any question is.
            try await fixture.client.execute(uri: "/api/v1/conversations/\(conversation)", method: .get) { response in
                let messages = response.object["messages"] as? [[String: Any]] ?? []
                #expect(messages.count == 2)
            }
        }
    }

    @Test("Silence is no question; a stop ends the question with what was said; a page on another site is refused")
    func silenceStopAndOrigin() async throws {
        try await withServerFixture(environment: KnowledgeAndMediaRoutesTests.local.merging(["SIBYL_VOICE_WAIT_SECONDS": "2"]) { $1 }, testing: .live) { fixture in
            fixture.model.handle(chatPath) { request in
                request.json?["stream"] as? Bool == true ? .chatStream(["Noted."]) : .chatCompletion("Note")
            }
            let conversation = try await TurnRoutesTests.conversation(fixture.client)
            let port = try #require(fixture.client.port)
            let url = "ws://127.0.0.1:\(port)/api/v1/conversations/\(conversation)/voice/live"
            let silent = Inbox()
            try await WebSocketClient.connect(url: url, configuration: Self.page, logger: Logger(label: "test-page")) { inbound, outbound, _ in
                try await Self.send([Int16](repeating: 0, count: 16_000 * 3)[...], to: outbound)
                for try await frame in inbound.messages(maxSize: 1 << 24) {
                    guard let message = Self.decode(frame) else { continue }
                    silent.add(message)
                    if message.event == "noSpeech" { break }
                }
            }
            #expect(silent.messages.map(\.event) == ["listening", "noSpeech"])
            // Speech, then Stop before any silence: what was said is the question.
            let wav = try await EspeakSynthesizer().synthesize("Remember to buy milk.", options: SpeechOptions(format: .wav))
            let speech = try AudioResampling.speechPCM16(fromWAV: wav.data)
            let stopped = Inbox()
            try await WebSocketClient.connect(url: url, configuration: Self.page, logger: Logger(label: "test-page")) { inbound, outbound, _ in
                try await Self.send(([Int16](repeating: 0, count: 8_000) + speech)[...], to: outbound)
                try await outbound.write(.text(#"{"type":"stop"}"#))
                for try await frame in inbound.messages(maxSize: 1 << 24) {
                    guard let message = Self.decode(frame) else { continue }
                    stopped.add(message)
                    if message.event == "timings" || message.event == "error" { break }
                }
            }
            let transcript = stopped.messages.first { $0.event == "transcript" }?.data["text"] as? String
            #expect(transcript?.lowercased().contains("milk") == true, "\(transcript ?? "nothing")")
            let foreign = WebSocketClientConfiguration(additionalHeaders: [.origin: "https://evil.example"])
            await #expect(throws: (any Error).self, "a page on another site is refused") {
                try await WebSocketClient.connect(url: url, configuration: foreign, logger: Logger(label: "test-page")) { _, _, _ in Issue.record("upgraded from another origin") }
            }
            await #expect(throws: (any Error).self, "an unknown conversation is refused before the upgrade") {
                try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/conversations/\(UUID())/voice/live", logger: Logger(label: "test-page")) { _, _, _ in Issue.record("upgraded") }
            }
        }
    }
}
