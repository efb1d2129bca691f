import Accounts
import Foundation
import HTTPTypes
import HummingbirdTesting
import LocalEngines
import NIOCore
import OpenAITestServer
import SibylCore
import SibylTestSupport
import Testing
@testable import SibylServer

/// `POST /api/v1/noa` as the Noa app reaches it: answers in the JSON the app
/// reads, and refusals whose status says what went wrong (the app shows the status and its
/// reason phrase), the body saying it in full.
@Suite(
    "The Noa app's endpoint", .timeLimit(.minutes(10)),
    .enabled(if: ["espeak-ng", "ffmpeg"].allSatisfy { tool in
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
    }, "espeak-ng and ffmpeg are not installed")
)
struct NoaRoutesTests {
    /// The app's recording of `text`: 8 kHz, 8-bit unsigned.
    static func appWAV(_ text: String) async throws -> Data {
        try NoaAppAudio.wav(from: try await EspeakSynthesizer().synthesize(text, options: SpeechOptions(format: .wav)).data)
    }

    static func form(audio: Data?, image: Data? = nil, messages: String = "[]") -> MultipartBody {
        var form = MultipartBody()
        form.field("messages", messages)
        form.field("location", "")
        form.field("time", "2026-11-28 09:05:00.000001")
        if let audio { form.file("audio", filename: "audio.wav", contentType: "application/octet-stream", audio) }
        if let image { form.file("image", filename: "image.jpg", contentType: "application/octet-stream", image) }
        return form
    }

    /// The fixture's model server hears `heard` in any recording, answers `answer` and embeds texts by their words.
    static func script(_ server: OpenAITestServer, heard: String, answer: [String]) {
        let model = ScriptedModel.scripting(server)
        model.hear(heard)
        model.script(answer: answer)
    }

    @Test func answersInTheJSONTheAppReadsAndRefusesWithReasonsItCanShow() async throws {
        let wav = try await Self.appWAV("What is the capital of France?")
        var limits = ServerLimits()
        limits.uploadBytes = 1 << 20
        try await withServerFixture(environment: ["SIBYL_TTS_PROVIDER": "local"], limits: limits, testing: .router) { fixture in
            Self.script(fixture.model, heard: "What is the capital of France?", answer: ["Paris."])
            let client = fixture.client
            var form = Self.form(audio: wav)
            try await client.execute(uri: "/api/v1/noa", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.status == .ok)
                #expect(response.object["user_prompt"] as? String == "What is the capital of France?")
                #expect(response.object["message"] as? String == "Paris.")
                let debug = try #require(response.object["debug"] as? [String: Any])
                #expect(debug["topic_changed"] as? Bool == false)
                #expect((debug["timings_ms"] as? [String: Any])?["transcribe"] is Int)
                #expect(response.object["audio"] == nil, "no speech unless glasses.spoken_answers is on")
            }
            // A question about something else after that exchange: topic_changed.
            Self.script(fixture.model, heard: "How should I boil an egg?", answer: ["Eight minutes."])
            let history = #"[{"role":"user","content":"What is the capital of France?"},{"role":"assistant","content":"Paris."}]"#
            form = Self.form(audio: wav, messages: history)
            try await client.execute(uri: "/api/v1/noa", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect((response.object["debug"] as? [String: Any])?["topic_changed"] as? Bool == true)
            }
            // Spoken answers, as MP3 the phone plays.
            _ = try await fixture.runtime.admin.set("glasses.spoken_answers", to: "on")
            form = Self.form(audio: wav)
            try await client.execute(uri: "/api/v1/noa", method: .post, headers: form.headers, body: form.buffer) { response in
                let audio = try #require((response.object["audio"] as? String).flatMap { Data(base64Encoded: $0) })
                #expect(AudioFormat(sniffing: audio) == .mp3, "\(audio.prefix(4).map { String(format: "%02x", $0) })")
            }
            _ = try await fixture.runtime.admin.unset("glasses.spoken_answers")

            // Refusals: the status the app shows, and the body saying it in full.
            func refusal(_ form: MultipartBody, _ status: Int, reason: String) async throws {
                try await client.execute(uri: "/api/v1/noa", method: .post, headers: form.headers, body: form.buffer) { response in
                    #expect(response.status.code == status, "\(response.text)")
                    #expect(!response.status.reasonPhrase.isEmpty)
                    let message = (response.object["error"] as? [String: Any])?["message"] as? String ?? response.text
                    #expect(message.contains(reason), "\(message)")
                }
            }
            try await refusal(Self.form(audio: nil), 400, reason: "no audio")
            let silence = WAVAudio(sampleRate: 8_000, channels: 1, bitsPerSample: 8, samples: Data(repeating: 128, count: 24_000)).encoded()
            try await refusal(Self.form(audio: silence), 422, reason: "No speech was heard")
            try await refusal(Self.form(audio: wav.prefix(20)), 422, reason: "not a WAV file")
            try await refusal(Self.form(audio: wav, messages: "{not json"), 400, reason: "'messages' is not a JSON list")
            try await refusal(Self.form(audio: wav, image: Data("this is not a photo".utf8)), 415, reason: "not a JPEG")
            let huge = Data([0xFF, 0xD8, 0xFF, 0xE0]) + Data(repeating: 1, count: 2 << 20)
            try await refusal(Self.form(audio: wav, image: huge), 413, reason: "larger than")
            // A model that fails: 503, and the reason says so.
            fixture.model.handle(chatPath) { _ in .error(status: 500, message: "the model crashed", code: "server_error") }
            try await refusal(Self.form(audio: wav), 503, reason: "language model failed")
        }
    }

    @Test func aReadOnlyTokenMayAskAndAWrongOneIsRefused() async throws {
        let wav = try await Self.appWAV("What is the capital of France?")
        let accounts = try Accounts.inMemory()
        let ada = try await accounts.add(name: "ada", password: AuthRoutesTests.password, role: .user)
        let token = try await accounts.issueToken(accountID: ada.id, label: "Noa app", readOnly: true).secret
        try await withServerFixture(testing: .router, accounts: accounts) { fixture in
            Self.script(fixture.model, heard: "What is the capital of France?", answer: ["Paris."])
            let form = Self.form(audio: wav)
            var headers = form.headers
            try await fixture.client.execute(uri: "/api/v1/noa", method: .post, headers: headers, body: form.buffer) { #expect($0.status == .unauthorized) }
            headers[.authorization] = "Bearer sibyl_wrong"
            try await fixture.client.execute(uri: "/api/v1/noa", method: .post, headers: headers, body: form.buffer) { #expect($0.status == .unauthorized) }
            headers[.authorization] = "Bearer \(token)"
            try await fixture.client.execute(uri: "/api/v1/noa", method: .post, headers: headers, body: form.buffer) { response in
                #expect(response.status == .ok, "\(response.text)")
                let id = try #require((response.object["debug"] as? [String: Any])?["conversation_id"] as? String)
                try await fixture.client.execute(uri: "/api/v1/conversations/\(id)", method: .get, headers: [.authorization: "Bearer \(token)"]) { conversation in
                    #expect((conversation.object["conversation"] as? [String: Any])?["source"] as? String == "noa", "kept in the token's account")
                }
            }
            try await fixture.client.execute(uri: "/api/v1/noa/setup", method: .get, headers: [.authorization: "Bearer \(token)"]) { response in
                #expect(response.object["tokenRequired"] as? Bool == true)
                #expect(response.object["headerName"] as? String == "Authorization")
                #expect(response.object["loopbackOnly"] as? Bool == true, "the fixture listens on 127.0.0.1")
                #expect((response.object["endpoints"] as? [String])?.isEmpty == true)
            }
        }
    }

    /// A request as noa-assistant's run_benchmark.py makes it for a local server: the question in
    /// the `mm` field as JSON (with members Sibyl has no use for), the photo as `image`.
    static func benchmarkForm(prompt: String, history: [[String: String]], image: Data? = nil, drawing: Bool = false, audio: Data? = nil) throws -> MultipartBody {
        var mm: [String: Any] = [
            "prompt": prompt, "messages": history, "address": "1 Rue de Rivoli, Paris", "local_time": "Saturday, November 28, 2026, 10:52 AM",
            "search_api": "perplexity", "config": ["engine": "google_lens"], "experiment": "1", "vision": NSNull(),
        ]
        if drawing { mm["generate_image"] = 1 }
        var form = MultipartBody()
        form.field("mm", String(decoding: try JSONSerialization.data(withJSONObject: mm), as: UTF8.self))
        if let audio { form.file("audio", filename: "audio.wav", contentType: "audio/wav", audio) }
        if let image { form.file("image", filename: "photo.png", contentType: "image/png", image) }
        return form
    }

    @Test func theOpenSourceNoaServersRouteIsAnsweredInItsOwnShape() async throws {
        let wav = try await Self.appWAV("the capital of France?")
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 32))
        try await withServerFixture(testing: .router) { fixture in
            Self.script(fixture.model, heard: "the capital of France?", answer: ["Paris."])
            fixture.model.handle("/v1/images/generations") { _ in .json(object: ["created": 1, "data": [["b64_json": png.base64EncodedString()]]]) }
            let client = fixture.client
            // Typed, with a photo: answered in MultimodalResponse's shape, timings a JSON text.
            var form = try Self.benchmarkForm(prompt: "What is the capital of France?", history: [], image: png)
            try await client.execute(uri: "/api/v1/noa/mm", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.status == .ok, "\(response.text)")
                #expect(response.object["user_prompt"] as? String == "What is the capital of France?")
                #expect((response.object["response"] as? String)?.hasSuffix("Paris.") == true)
                #expect(response.object["image"] as? String == "")
                #expect(response.object["capabilities_used"] as? [String] == ["assistant_knowledge"], "no vision model: the photo was not looked at")
                let timings = try #require((response.object["timings"] as? String).map { Data($0.utf8) })
                #expect((try JSONSerialization.jsonObject(with: timings) as? [String: Any])?["total"] != nil)
                for key in ["token_usage_by_model", "total_tokens", "input_tokens", "output_tokens", "debug_tools"] { #expect(response.object[key] != nil, "\(key)") }
            }
            // Typed words and a recording together: the words first, then what was heard.
            form = try Self.benchmarkForm(prompt: "Tell me", history: [], audio: wav)
            try await client.execute(uri: "/api/v1/noa/mm", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.object["user_prompt"] as? String == "Tell me the capital of France?")
            }
            // generate_image: the picture, as a data URL.
            form = try Self.benchmarkForm(prompt: "a fox in the snow", history: [], drawing: true)
            try await client.execute(uri: "/api/v1/noa/mm", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.object["image"] as? String == "data:image/png;base64,\(png.base64EncodedString())")
                #expect(response.object["capabilities_used"] as? [String] == ["image_generation"])
                #expect(response.object["response"] as? String == "")
            }
            // Nothing to answer, and no mm at all.
            form = try Self.benchmarkForm(prompt: " ", history: [])
            try await client.execute(uri: "/api/v1/noa/mm", method: .post, headers: form.headers, body: form.buffer) { #expect($0.status == .badRequest) }
            var empty = MultipartBody()
            empty.field("prompt", "hello")
            try await client.execute(uri: "/api/v1/noa/mm", method: .post, headers: empty.headers, body: empty.buffer) { #expect($0.status == .badRequest) }
        }
    }

    @Test("Where a phone can reach the server")
    func setupAddresses() {
        #expect(NoaRoutes.hostAndPort("192.168.1.20:8080", defaultPort: 80) == ("192.168.1.20", 8080))
        #expect(NoaRoutes.hostAndPort("[fe80::1]:9000", defaultPort: 80) == ("fe80::1", 9000))
        #expect(NoaRoutes.hostAndPort("sibyl.home", defaultPort: 443) == ("sibyl.home", 443))
    }
}
