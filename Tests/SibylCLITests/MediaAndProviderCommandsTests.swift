import Foundation
import OpenAITestServer
import SibylCore
import Testing

@Suite("sibyl transcribe, speak, imagine, providers check", .timeLimit(.minutes(10)))
struct MediaAndProviderCommandsTests {
    @Test func transcribeAndTranslate() async throws {
        try await OpenAITestServer.with { server in
            server.handle("/v1/audio/transcriptions") { _ in .json(#"{"text":" Bonjour tout le monde ","language":"fr"}"#) }
            server.handle("/v1/audio/translations") { _ in .json(#"{"text":"Hello everyone"}"#) }
            let cli = try CLIRunner(server: server)
            let wav = cli.home.appendingPathComponent("clip.wav")
            try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
            try WAVAudio(sampleRate: 16_000, channels: 1, bitsPerSample: 16, samples: Data(count: 3200)).encoded().write(to: wav)
            let plain = try await cli.run(["transcribe", wav.path])
            #expect(plain.status == 0)
            #expect(plain.stdout == "Bonjour tout le monde\n")
            let translated = try await cli.run(["transcribe", wav.path, "--translate", "--json"])
            #expect((translated.json as? [String: Any])?["text"] as? String == "Hello everyone")
            let missing = try await cli.run(["transcribe", "/nonexistent.wav"])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("Cannot read"))
        }
    }

    @Test func speakWritesTheAudioFile() async throws {
        try await OpenAITestServer.with { server in
            let audio = WAVAudio(sampleRate: 24_000, channels: 1, bitsPerSample: 16, samples: Data(repeating: 3, count: 480)).encoded()
            server.handle("/v1/audio/speech") { _ in .bytes(audio, contentType: "audio/wav") }
            let cli = try CLIRunner(server: server)
            try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
            let out = cli.home.appendingPathComponent("hello.wav").path
            let result = try await cli.run(["speak", "Hello there", "-o", out, "--voice", "nova", "--speed", "1.1"])
            #expect(result.status == 0)
            #expect(FileManager.default.contents(atPath: out) == audio)
            let json = try #require(server.requests(to: "/v1/audio/speech").first?.json)
            #expect(json["voice"] as? String == "nova")
            #expect(json["response_format"] as? String == "wav")
            #expect(try await cli.run(["speak", "x", "-o", "out.xyz"]).status == 1)
        }
    }

    @Test func imagineSavesEveryImage() async throws {
        try await OpenAITestServer.with { server in
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 9])
            server.handle("/v1/images/generations") { _ in
                .json(object: ["created": 1, "data": [["b64_json": png.base64EncodedString()], ["b64_json": png.base64EncodedString()]]])
            }
            let cli = try CLIRunner(server: server)
            try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
            let out = cli.home.appendingPathComponent("fox.png").path
            // DALL·E 3, the default, draws one at a time: two are refused before anything is sent.
            let refused = try await cli.run(["imagine", "a", "red", "fox", "-o", out, "-n", "2"])
            #expect(refused.status == 1 && refused.stderr.contains("dall-e-3 draws one image at a time"), "\(refused.stderr)")
            #expect(server.requests(to: "/v1/images/generations").isEmpty)
            let result = try await cli.run(["imagine", "a", "red", "fox", "-o", out, "-n", "2", "--model", "dall-e-2"])
            #expect(result.status == 0)
            #expect(FileManager.default.contents(atPath: cli.home.appendingPathComponent("fox-1.png").path) == png)
            #expect(FileManager.default.contents(atPath: cli.home.appendingPathComponent("fox-2.png").path) == png)
            #expect(server.requests(to: "/v1/images/generations").first?.json?["prompt"] as? String == "a red fox")
        }
    }

    @Test func providersCheckReportsEachCapability() async throws {
        try await OpenAITestServer.with { server in
            server.handle("/v1/models") { _ in .json(#"{"data":[{"id":"local-model"}]}"#) }
            answerEverything(server, with: ["OK"])
            let cli = try CLIRunner(server: server)
            let result = try await cli.run(["providers", "check", "--json"])
            #expect(result.status == 0)
            let rows = try #require(result.json as? [[String: Any]])
            let states = Dictionary(uniqueKeysWithValues: rows.map { ($0["capability"] as? String ?? "", $0["state"] as? String ?? "") })
            #expect(states["chat"] == "available")
            #expect(states["stream"] == "available")
            #expect(states["embeddings"] == "unavailable")
            #expect(states["speech"] == "unavailable")
            #expect(rows.first { $0["capability"] as? String == "chat" }?["model"] as? String == "gpt-4o-mini")
            #expect(server.requests(to: chatPath).first?.json?["model"] as? String == "local-model")
            let table = try await cli.run(["providers", "check"])
            #expect(table.stdout.contains("not served"))
            #expect(table.stdout.contains("available"))
        }
    }

    @Test func providersCheckWithoutAKeySaysSo() async throws {
        let result = try await CLIRunner(server: nil).run(["providers", "check"])
        #expect(result.stdout.contains("no API key"))
    }
}
