import Foundation
import OpenAITestServer
import SibylCore
import Testing
@testable import OpenAIClient

@Suite("Images, models and the capability probe", .timeLimit(.minutes(10)))
struct ImagesAndModelsTests {
    let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])

    @Test func base64ImagesAreDecoded() async throws {
        try await withServer { server in
            server.enqueue(.json(object: ["created": 1, "data": [["b64_json": png.base64EncodedString(), "revised_prompt": "a red fox"]]]), for: "/v1/images/generations")
            let images = try await makeClient(server).generateImages("fox", options: ImageOptions(model: "dall-e-3", size: "1024x1024"))
            #expect(images.count == 1)
            #expect(images[0].data == png)
            #expect(images[0].mimeType == "image/png")
            #expect(images[0].revisedPrompt == "a red fox")
            let json = try #require(server.requests(to: "/v1/images/generations").first?.json)
            #expect(json["response_format"] as? String == "b64_json")
            #expect(json["size"] as? String == "1024x1024")
        }
    }

    @Test func imageURLsAreDownloadedAtOnceWithoutTheKey() async throws {
        try await withServer { server in
            server.enqueue(.json(object: ["created": 1, "data": [["url": "http://127.0.0.1:\(server.port)/files/fox.png"]]]), for: "/v1/images/generations")
            server.enqueue(.bytes(png, contentType: "image/png"), for: "/files/fox.png")
            let images = try await makeClient(server).generateImages("fox", options: ImageOptions(model: "gpt-image-1"))
            #expect(images.first?.data == png)
            #expect(server.requests(to: "/files/fox.png").first?.header("Authorization") == nil)
            #expect(server.requests(to: "/v1/images/generations").first?.json?["response_format"] == nil)
        }
    }

    @Test func modelsAreListed() async throws {
        try await withServer { server in
            server.enqueue(.json(#"{"object":"list","data":[{"id":"qwen","object":"model","owned_by":"llamacpp","created":1}]}"#), for: "/v1/models")
            let models = try await makeClient(server).models()
            #expect(models == [ModelInfo(id: "qwen", ownedBy: "llamacpp", created: 1)])
        }
    }

    @Test func probeReportsWhatTheServerServes() async throws {
        try await withServer { server in
            server.handle("/v1/models") { _ in .json(#"{"data":[{"id":"only-model"}]}"#) }
            server.handle(chatPath) { request in
                request.json?["stream"] as? Bool == true ? .chatStream(["OK"]) : .chatCompletion("OK", model: "only-model")
            }
            server.handle("/v1/embeddings") { _ in
                .error(status: 501, message: "This server does not support embeddings. Start it with `--embeddings`", type: "not_supported_error")
            }
            server.handle("/v1/images/generations") { _ in .error(status: 400, message: "prompt is required") }
            let report = await makeClient(server).probe()
            #expect(report.models?.map(\.id) == ["only-model"])
            #expect(report.status(of: .chat)?.state == .available)
            #expect(report.status(of: .chat)?.detail == "model only-model")
            #expect(report.status(of: .stream)?.state == .available)
            #expect(report.status(of: .embeddings)?.state == .unavailable)
            #expect(report.status(of: .embeddings)?.detail.contains("--embeddings") == true)
            #expect(report.status(of: .transcription)?.state == .unavailable)
            #expect(report.status(of: .translation)?.state == .unavailable)
            #expect(report.status(of: .speech)?.state == .unavailable)
            #expect(report.status(of: .images)?.state == .present)
            // Probing must not generate an image: the only images request is the empty one.
            #expect(server.requests(to: "/v1/images/generations").allSatisfy { $0.json?["prompt"] == nil })
            let chatRequest = server.requests(to: chatPath).first?.json
            #expect(chatRequest?["model"] as? String == "only-model")
        }
    }

    @Test func probeSeesARefusedKeyAndAnUnreachableServer() async throws {
        try await withServer { server in
            server.handle("/v1/models") { _ in .error(status: 401, message: "bad key", code: "invalid_api_key") }
            server.handle(chatPath) { _ in .error(status: 401, message: "bad key", code: "invalid_api_key") }
            let report = await makeClient(server).probe([.chat])
            #expect(report.status(of: .chat)?.state == .unauthorized)
            #expect(report.modelsError != nil)
        }
        let unreachable = OpenAIClient(configuration: OpenAIConfiguration(baseURL: "http://127.0.0.1:9/v1", connectTimeout: .seconds(2)))
        let report = await unreachable.probe([.chat])
        #expect(report.status(of: .chat)?.state == .unreachable)
    }
}
