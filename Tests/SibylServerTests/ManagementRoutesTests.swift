import Foundation
import HummingbirdTesting
import Testing
@testable import SibylServer

@Suite("Personas, settings, keys, logs and models over the API", .timeLimit(.minutes(10)))
struct ManagementRoutesTests {
    @Test func personasCanBeAddedUsedAndRemoved() async throws {
        try await withServerFixture { fixture in
            let client = fixture.client
            try await client.execute(uri: "/api/v1/personas/buddy", method: .put, headers: jsonHeaders, body: jsonBody(["systemPrompt": "You answer with a joke.", "temperature": 1.0])) { response in
                #expect(response.status == .ok)
                #expect(response.object["builtIn"] as? Bool == false)
            }
            try await client.execute(uri: "/api/v1/personas", method: .get) { response in
                #expect(response.array.compactMap { $0["name"] as? String } == ["assistant", "concise", "translator", "buddy"])
            }
            try await client.execute(uri: "/api/v1/personas/buddy", method: .put, headers: jsonHeaders, body: jsonBody(["systemPrompt": "x", "temperature": 7])) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/v1/personas/buddy", method: .put, headers: jsonHeaders, body: jsonBody(["systemPrompt": "x", "topP": 1.5])) { response in
                #expect(response.status == .badRequest)
                #expect((response.object["error"] as? [String: Any])?["message"] as? String == "top_p must be between 0 and 1, not 1.5.")
            }
            try await client.execute(uri: "/api/v1/personas/assistant", method: .delete) { response in
                #expect(response.status == .conflict)
                #expect(response.errorCode == "built_in")
            }
            try await client.execute(uri: "/api/v1/personas/buddy", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/v1/personas/buddy", method: .get) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func aPersonasSamplingIsKeptAndSentAndABuiltInCanBeCopied() async throws {
        try await withServerFixture { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["Arr"]) }
            let client = fixture.client
            let sampling: [String: Any] = ["temperature": 0.4, "maxTokens": 120, "topP": 0.7, "presencePenalty": 0.5, "frequencyPenalty": -1]
            try await client.execute(uri: "/api/v1/personas/tuned", method: .put, headers: jsonHeaders, body: jsonBody(sampling.merging(["systemPrompt": "Be exact.", "model": "m-tuned"]) { $1 })) { response in
                #expect(response.status == .ok)
            }
            try await client.execute(uri: "/api/v1/personas/tuned", method: .get) { response in
                for (key, value) in sampling { #expect((response.object[key] as? NSNumber)?.doubleValue == (value as? NSNumber)?.doubleValue, "\(key)") }
                #expect(response.object["model"] as? String == "m-tuned")
            }
            // The persona's sampling goes with its answers.
            let id = try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: jsonBody(["persona": "tuned"])) { response in
                try #require(response.object["id"] as? String)
            }
            try await client.execute(uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "Hi", "stream": false])) { #expect($0.status == .ok) }
            let sent = try #require(fixture.model.requests(to: chatPath).last?.json)
            #expect(sent["model"] as? String == "m-tuned")
            #expect(sent["top_p"] as? Double == 0.7)
            #expect(sent["presence_penalty"] as? Double == 0.5)
            #expect(sent["frequency_penalty"] as? Double == -1)
            #expect(sent["max_tokens"] as? Int == 120)
            // And with the persona's answers through the OpenAI-compatible API, where the client's own values win.
            let completion: [String: Any] = ["model": "sibyl-tuned", "messages": [["role": "user", "content": "Hi"]], "top_p": 0.2]
            try await client.execute(uri: "/v1/chat/completions", method: .post, headers: jsonHeaders, body: jsonBody(completion)) { #expect($0.status == .ok) }
            let viaV1 = try #require(fixture.model.requests(to: chatPath).last?.json)
            #expect(viaV1["model"] as? String == "m-tuned")
            #expect(viaV1["top_p"] as? Double == 0.2)
            #expect(viaV1["presence_penalty"] as? Double == 0.5)

            // A built-in persona copied: the copy is the user's, with the original's prompt and sampling.
            try await client.execute(uri: "/api/v1/personas/translator/copy", method: .post, headers: jsonHeaders, body: jsonBody(["name": "my translator"])) { response in
                #expect(response.status == .created)
                #expect(response.object["builtIn"] as? Bool == false)
                #expect(response.object["temperature"] as? Double == 0.2)
                #expect((response.object["systemPrompt"] as? String)?.hasPrefix("You are a translator.") == true)
            }
            try await client.execute(uri: "/api/v1/personas/concise/copy", method: .post, headers: jsonHeaders, body: jsonBody(["name": "My Translator"])) { response in
                #expect(response.status == .conflict)
            }
        }
    }

    @Test func theChatModelsToPickAreTheProvidersChatModelsAndAPickIsAskedFor() async throws {
        try await withServerFixture { fixture in
            let listed = ["gpt-4o", "text-embedding-3-small", "whisper-1", "dall-e-3", "gpt-4o-mini-tts", "omni-moderation-latest", "gpt-4o-mini"]
            fixture.model.handle("/v1/models") { _ in .json(object: ["object": "list", "data": listed.map { ["id": $0, "object": "model"] }]) }
            fixture.model.handle(chatPath) { _ in .chatStream(["Hi"]) }
            let client = fixture.client
            try await client.execute(uri: "/api/v1/chat/models", method: .get) { response in
                #expect(response.status == .ok)
                let models = (response.object["models"] as? [[String: Any]]) ?? []
                #expect(models.filter { $0["local"] as? Bool == false }.compactMap { $0["id"] as? String } == ["gpt-4o", "gpt-4o-mini"])
                #expect(models.first { $0["id"] as? String == "gpt-4o" }?["setting"] as? String == "chat.model")
                // The local ones that are installed are offered too, made the default by chat.local_model.
                for local in models where local["local"] as? Bool == true {
                    #expect(local["setting"] as? String == "chat.local_model")
                    #expect(["default", "fast"].contains(local["value"] as? String ?? ""))
                }
                #expect(response.object["current"] is String)
            }
            let id = try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: jsonBody([:])) { response in
                try #require(response.object["id"] as? String)
            }
            try await client.execute(uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "Hi", "model": "gpt-4o-mini", "stream": false])) {
                #expect($0.status == .ok)
            }
            #expect(fixture.model.requests(to: chatPath).last?.json?["model"] as? String == "gpt-4o-mini")
            // A provider that cannot list its models: the default is still offered, and why is said.
            fixture.model.handle("/v1/models") { _ in .error(status: 401, message: "Incorrect API key provided.") }
            try await client.execute(uri: "/api/v1/chat/models", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.object["problem"] is String)
            }
        }
    }

    @Test func aSettingChangedThroughTheAPIAppliesToTheNextAnswer() async throws {
        try await withServerFixture { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["ok"]) }
            let client = fixture.client
            try await client.execute(uri: "/api/v1/settings/chat.model", method: .put, headers: jsonHeaders, body: jsonBody(["value": "model-two"])) { response in
                #expect(response.status == .ok)
                #expect(response.object["value"] as? String == "model-two")
                #expect(response.object["source"] as? String == "file")
            }
            let id = try await TurnRoutesTests.conversation(client)
            try await client.execute(uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "hi", "stream": false])) { response in
                #expect(response.object["status"] as? String == "complete")
            }
            let sent = fixture.model.requests(to: chatPath).compactMap(\.json).last
            #expect(sent?["model"] as? String == "model-two")
            try await client.execute(uri: "/api/v1/settings/chat.model", method: .delete) { response in
                #expect(response.object["source"] as? String == "default")
            }
            try await client.execute(uri: "/api/v1/settings/no.such.setting", method: .put, headers: jsonHeaders, body: jsonBody(["value": "1"])) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/v1/settings/docs.threshold", method: .put, headers: jsonHeaders, body: jsonBody(["value": "high"])) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/v1/settings", method: .get) { response in
                #expect(response.array.contains { $0["key"] as? String == "serve.port" })
            }
        }
    }

    @Test func keysAreWriteOnly() async throws {
        let secret = "sk-test-abcdefghijklmnopqrstuvwxyz0123"
        try await withServerFixture { fixture in
            let client = fixture.client
            try await client.execute(uri: "/api/v1/keys/openai", method: .put, headers: jsonHeaders, body: jsonBody(["key": secret])) { response in
                #expect(response.status == .ok)
                #expect(!response.text.contains("abcdefghijklmnop"))
            }
            try await client.execute(uri: "/api/v1/keys", method: .get) { response in
                #expect(response.array.first?["name"] as? String == "openai")
                #expect(!response.text.contains("abcdefghijklmnop"))
            }
            try await client.execute(uri: "/api/v1/logs", method: .get) { response in
                #expect(response.text.contains("keys.set"))
                #expect(!response.text.contains("abcdefghijklmnop"))
            }
            try await client.execute(uri: "/api/v1/keys/openai", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/v1/keys/openai", method: .delete) { response in
                #expect(response.status == .notFound)
            }
        }
    }

    @Test func logsFilterAndExport() async throws {
        try await withServerFixture { fixture in
            await fixture.runtime.log(.info, .docsAdd, "added two files")
            await fixture.runtime.log(.warning, .docsAdd, "one file failed")
            await fixture.runtime.log(.error, .ask, "the model failed")
            let client = fixture.client
            try await client.execute(uri: "/api/v1/logs?operation=docs", method: .get) { response in
                #expect(response.array.count == 2)
            }
            try await client.execute(uri: "/api/v1/logs?level=warning", method: .get) { response in
                #expect(response.array.compactMap { $0["message"] as? String } == ["one file failed", "the model failed"])
            }
            try await client.execute(uri: "/api/v1/logs?level=error&format=csv", method: .get) { response in
                #expect(response.headers[.contentType]?.hasPrefix("text/csv") == true)
                #expect(response.text.hasPrefix("at,level,operation,message,details\n"))
                #expect(response.text.contains(",error,ask,the model failed,"))
            }
            try await client.execute(uri: "/api/v1/logs?since=2000-01-01T00:00:00Z&until=2001-01-01T00:00:00Z", method: .get) { response in
                #expect(response.array.isEmpty)
            }
            try await client.execute(uri: "/api/v1/logs?since=yesterday", method: .get) { response in
                #expect(response.status == .badRequest)
            }
        }
    }

    @Test func modelsAndProvidersAreReported() async throws {
        try await withServerFixture { fixture in
            fixture.model.handle("/v1/models") { _ in .json(object: ["object": "list", "data": [["id": "test-model", "object": "model", "created": 0, "owned_by": "test"]]]) }
            fixture.model.handle(chatPath) { request in request.json?["stream"] as? Bool == true ? .chatStream(["ok"]) : .chatCompletion("ok") }
            try await fixture.client.execute(uri: "/api/v1/models", method: .get) { response in
                #expect(Set(response.array.compactMap { $0["name"] as? String }).isSuperset(of: ["chat", "embeddings", "stt", "tts"]))
            }
            try await fixture.client.execute(uri: "/api/v1/models/install", method: .post, headers: jsonHeaders, body: jsonBody(["components": ["warp-drive"]])) { response in
                #expect(response.status == .badRequest)
            }
            try await fixture.client.execute(uri: "/api/v1/providers/check", method: .get) { response in
                let chat = response.array.first { $0["capability"] as? String == "chat" }
                #expect(chat?["using"] as? String == "remote")
                #expect(chat?["state"] as? String == "available")
            }
        }
    }

    @Test func imagesAreDrawnKeptAndServed() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 32))
        try await withServerFixture { fixture in
            fixture.model.handle("/v1/images/generations") { _ in .json(object: ["created": 1, "data": [["b64_json": png.base64EncodedString(), "revised_prompt": "a red fox at dawn"]]]) }
            var url = ""
            try await fixture.client.execute(uri: "/api/v1/images", method: .post, headers: jsonHeaders, body: jsonBody(["prompt": "a fox"])) { response in
                #expect(response.status == .created)
                let image = try #require((response.object["images"] as? [[String: Any]])?.first)
                #expect(image["mimeType"] as? String == "image/png")
                url = try #require(image["url"] as? String)
            }
            try await fixture.client.execute(uri: url, method: .get) { response in
                #expect(response.headers[.contentType] == "image/png")
                #expect(Data(buffer: response.body) == png, "served from Sibyl's storage, not the provider")
            }
            try await fixture.client.execute(uri: "/api/v1/images", method: .get) { response in
                #expect(response.array.count == 1)
                #expect(response.array.first?["prompt"] as? String == "a fox")
            }
            try await fixture.client.execute(uri: "/api/v1/images", method: .post, headers: jsonHeaders, body: jsonBody(["prompt": "a fox", "count": 11])) { response in
                #expect(response.status == .badRequest)
            }
            // Only the sizes the image model draws: offered, and checked before anything is sent.
            try await fixture.client.execute(uri: "/api/v1/images/options", method: .get) { response in
                #expect(response.object["model"] as? String == "dall-e-3")
                #expect(response.object["sizes"] as? [String] == ["1024x1024", "1792x1024", "1024x1792"])
                let models = response.object["models"] as? [[String: Any]] ?? []
                #expect(models.map { $0["id"] as? String } .prefix(3) == ["dall-e-3", "dall-e-2", "gpt-image-1"], "the configured one first")
                #expect(models.first?["maxCount"] as? Int == 1)
                #expect(models.dropFirst().first?["sizes"] as? [String] == ["256x256", "512x512", "1024x1024"])
            }
            // DALL·E 3 draws one image at a time: two are refused before anything is sent.
            try await fixture.client.execute(uri: "/api/v1/images", method: .post, headers: jsonHeaders, body: jsonBody(["prompt": "a fox", "count": 2])) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("dall-e-3 draws one image at a time"), "\(response.text)")
            }
            let drawn = fixture.model.requests(to: "/v1/images/generations").count
            try await fixture.client.execute(uri: "/api/v1/images", method: .post, headers: jsonHeaders, body: jsonBody(["prompt": "a fox", "size": "512x512"])) { response in
                #expect(response.status == .badRequest)
                #expect(response.text.contains("dall-e-3 does not draw 512x512 images: choose 1024x1024, 1792x1024, 1024x1792"), "\(response.text)")
            }
            try await fixture.client.execute(uri: "/api/v1/images", method: .post, headers: jsonHeaders, body: jsonBody(["prompt": "a fox", "size": "512x512", "model": "dall-e-2"])) { response in
                #expect(response.status == .created)
            }
            #expect(fixture.model.requests(to: "/v1/images/generations").count == drawn + 1, "the refused size never reached the provider")
            fixture.model.handle("/v1/images/generations") { _ in .error(status: 500, message: "the image model is down") }
            try await fixture.client.execute(uri: "/api/v1/images", method: .post, headers: jsonHeaders, body: jsonBody(["prompt": "a fox"])) { response in
                #expect(response.status == .badGateway)
                #expect(response.errorCode == "provider_error")
            }
        }
    }
}
