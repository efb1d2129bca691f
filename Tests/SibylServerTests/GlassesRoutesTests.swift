import Assistant
import Foundation
import HummingbirdWSClient
import HummingbirdTesting
import LocalEngines
import Logging
import NIOCore
import SibylCore
import Testing
@testable import SibylServer

@Suite("Glasses over the API", .serialized)
struct GlassesRoutesTests {
    /// A browser that joins the relay route: the server starts a controller on it, which begins
    /// by sending the glasses the raw-REPL interrupt.
    @Test func theRelayIsAWebSocketRouteOnTheSameServer() async throws {
        try await withServerFixture(testing: .live) { fixture in
            let port = try #require(fixture.client.port)
            let firstBytes = try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/glasses/relay", logger: Logger(label: "test-browser")) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"connected","maxWriteLength":253}"#))
                for try await frame in inbound.messages(maxSize: 1 << 16) {
                    if case .binary = frame {
                        try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                            #expect(response.array.first?["kind"] as? String == "relay")
                        }
                        return
                    }
                }
            }
            _ = firstBytes
            try await waitUntil { fixture.server.state.glasses.all.isEmpty }
        }
    }

    @Test func theRelayRouteRefusesPlainRequests() async throws {
        try await withServerFixture { fixture in
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator", method: .delete) { response in
                #expect(response.status == .notFound)
            }
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator/tap", method: .post) { response in
                #expect(response.status == .notFound)
            }
            try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                #expect(response.array.isEmpty)
            }
        }
    }

    @Test(.enabled(
        if: FileManager.default.fileExists(atPath: EngineLayout().microPythonModule.path)
            && EngineInstaller(layout: EngineLayout()).status().first { $0.name == "stt" }?.installed == true,
        "the MicroPython interpreter or speech-to-text is not installed"
    ))
    func theVirtualMonocleAnswersASpokenQuestion() async throws {
        try await withServerFixture(environment: ["SIBYL_STT_PROVIDER": "local", "SIBYL_ENGINES": EngineLayout().root.path]) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["Paris."]) }
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator", method: .post, headers: jsonHeaders, body: jsonBody([:])) { response in
                #expect(response.status == .created, "\(response.text)")
            }
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator", method: .post, headers: jsonHeaders, body: jsonBody([:])) { response in
                #expect(response.status == .conflict)
            }
            try await waitUntilScreen(fixture) { $0.contains { $0.lowercased().contains("tap") } }
            let speech = try await EspeakSynthesizer().synthesize("What is the capital of France?", options: SpeechOptions(format: .wav, speed: 0.8)).data
            var form = MultipartBody()
            form.file("file", filename: "question.wav", contentType: "audio/wav", speech)
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator/microphone", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.status == .accepted)
            }
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator/tap", method: .post) { response in
                #expect(response.status == .accepted)
            }
            try await waitUntilScreen(fixture) { $0.joined(separator: " ").contains("Paris") }
            try await fixture.client.execute(uri: "/api/v1/glasses", method: .get) { response in
                let link = response.array.first
                #expect(link?["kind"] as? String == "emulator")
                #expect(link?["lastAnswer"] as? String == "Paris.")
                #expect((link?["lastQuestion"] as? String)?.lowercased().contains("capital") == true)
                #expect(link?["firmware"] as? String != nil)
            }
            try await fixture.client.execute(uri: "/api/v1/conversations?source=glasses", method: .get) { response in
                #expect(response.object["total"] as? Int == 1)
            }
            try await fixture.client.execute(uri: "/api/v1/glasses/emulator", method: .delete) { response in
                #expect(response.status == .noContent)
            }
        }
    }

    /// Polls the virtual glasses' screen until it shows what `condition` wants (ceiling: 3 minutes, against hangs).
    func waitUntilScreen(_ fixture: ServerFixture, _ condition: @escaping @Sendable ([String]) -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(180)
        while ContinuousClock.now < deadline {
            let lines = try await fixture.client.execute(uri: "/api/v1/glasses/emulator/screen", method: .get) { response in
                (response.object["lines"] as? [String]) ?? []
            }
            if condition(lines) { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        Issue.record("the screen never showed what was waited for")
    }
}
