import Foundation
import OpenAITestServer
import SibylCore
import Testing
@testable import APIContract
@testable import OpenAIClient

/// Every request body the client builds must validate against OpenAI's published OpenAPI spec.
@Suite(.timeLimit(.minutes(10)), .enabled(if: APISpec.openAILocation != nil, "OpenAI spec not found: set SIBYL_OPENAI_SPEC or keep ../shared/specs/openai-openapi.yaml"))
struct ClientContractTests {
    let checker: ContractChecker

    init() throws {
        checker = try #require(try ContractChecker.openAI())
    }

    private func expectValid(_ request: RecordedRequest, sourceLocation: SourceLocation = #_sourceLocation) {
        let issues = checker.issues(forRequestBody: request.body, path: request.path, contentType: request.header("Content-Type") ?? "")
        #expect(issues.isEmpty, "\(request.path): \(issues.map { "\($0.path): \($0.message)" }.joined(separator: "; "))", sourceLocation: sourceLocation)
    }

    @Test func everyRequestTheClientSendsMatchesTheSpec() async throws {
        try await withServer { server in
            server.handle(chatPath) { request in
                request.json?["stream"] as? Bool == true ? .chatStream(["ok"]) : .chatCompletion("ok")
            }
            server.handle("/v1/completions") { _ in .json(object: ["id": "c", "object": "text_completion", "created": 0, "model": "m", "choices": [["index": 0, "text": "ok", "finish_reason": "stop", "logprobs": NSNull()]]]) }
            server.handle("/v1/embeddings") { _ in .json(#"{"data":[{"index":0,"embedding":[0.1]},{"index":1,"embedding":[0.2]}]}"#) }
            server.handle("/v1/audio/speech") { _ in
                .bytes(WAVAudio(sampleRate: 24_000, channels: 1, bitsPerSample: 16, samples: Data(count: 10)).encoded(), contentType: "audio/wav")
            }
            server.handle("/v1/audio/transcriptions") { _ in .json(#"{"text":"hi"}"#) }
            server.handle("/v1/audio/translations") { _ in .json(#"{"text":"hi"}"#) }
            server.handle("/v1/images/generations") { _ in .json(object: ["created": 1, "data": [["b64_json": Data([0x89, 0x50]).base64EncodedString()]]]) }

            let client = makeClient(server)
            let image = ImageInput(source: .data(Data([0xFF, 0xD8, 0xFF]), mimeType: "image/jpeg"), detail: .high)
            let full = ChatRequest(
                model: "gpt-4o-mini",
                messages: [.system("Be brief."), ChatMessage(role: .user, parts: [.text("What is this?"), .image(image)]), .assistant("A photo."), .user("Sure?")],
                sampling: Sampling(temperature: 0.5, maxTokens: 100, topP: 0.8, presencePenalty: 1, frequencyPenalty: 0.5),
                stop: ["END"],
                user: "user-1"
            )
            _ = try await client.complete(full)
            for try await _ in client.stream(full) {}
            var instruct = full
            instruct.model = "gpt-3.5-turbo-instruct"
            instruct.messages = [.system("Be brief."), .user("What is this?")]
            _ = try await client.complete(instruct)
            _ = try await client.embed(["a", "b"], options: EmbeddingOptions(model: "text-embedding-3-small", dimensions: 256))
            _ = try await client.synthesize("Hello there.", options: SpeechOptions(model: "tts-1", voice: "nova", format: .wav, speed: 1.5))
            let audio = AudioFile(data: WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data(count: 320)).encoded(), format: .wav)
            _ = try await client.transcribe(audio, options: TranscriptionOptions(language: "en", prompt: "names", model: "whisper-1", temperature: 0))
            _ = try await client.transcribe(audio, options: TranscriptionOptions(translate: true, prompt: "names"))
            _ = try await client.generateImages("a fox", options: ImageOptions(model: "dall-e-3", size: "1024x1024", quality: "hd"))
            _ = try await client.generateImages("a fox", options: ImageOptions(model: "gpt-image-1", size: "1024x1024", count: 2))

            let recorded = server.requests
            #expect(recorded.count == 9)
            for request in recorded { expectValid(request) }
        }
    }

    @Test func theBodySentToOpenAIItselfMatchesTheSpec() throws {
        let client = OpenAIClient(configuration: OpenAIConfiguration(apiKey: "k"))
        let body = try OpenAIClient.json(client.chatBody(ChatRequest(model: "o3-mini", messages: [.user("hi")], sampling: Sampling(maxTokens: 50)), stream: true))
        let issues = checker.issues(forRequestBody: body.data, path: "/chat/completions", contentType: body.contentType)
        #expect(issues.isEmpty, "\(issues)")
    }

    @Test func theCheckerWouldCatchAWrongBody() {
        let wrong = Data(#"{"model":"m","messages":[{"role":"robot","content":"hi"}]}"#.utf8)
        #expect(!checker.issues(forRequestBody: wrong, path: "/v1/chat/completions", contentType: "application/json").isEmpty)
    }
}
