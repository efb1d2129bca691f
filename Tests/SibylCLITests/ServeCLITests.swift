import Foundation
import LocalEngines
import SibylCore
import Testing

/// `sibyl serve` as a user runs it, on the local engines, driven by the official OpenAI Python SDK
/// (scripts/openai-sdk: pinned in a virtual environment that scripts/test.sh makes).
@Suite(
    .timeLimit(.minutes(30)), .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["SIBYL_OPENAI_SDK_PYTHON"] != nil
            && EngineInstaller(layout: EngineLayout()).status().filter { ["chat", "embeddings", "stt", "tts"].contains($0.name) }.allSatisfy(\.installed),
        "the OpenAI SDK environment (scripts/openai-sdk/setup.sh) or the local engines are missing"
    )
)
struct ServeCLITests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Waits for the line that names the port and returns it.
    static func port(of server: CLIRunner.Running) async throws -> Int {
        try await server.waitForOutput(containing: "is listening on", inErrors: true, timeout: .seconds(300))
        let line = try #require(server.stderr.text.split(separator: "\n").first { $0.contains("is listening on") })
        let address = try #require(line.split(separator: " ").first { $0.hasPrefix("http://") || $0.hasPrefix("https://") })
        return try #require(Int(address.split(separator: ":").last ?? ""))
    }

    @Test func theOfficialOpenAISDKWorksAgainstSibylServeOnTheLocalEngines() async throws {
        var cli = try CLIRunner(server: nil)
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        cli.environment["SIBYL_CHAT_TEMPERATURE"] = "0"
        let handbook = cli.home.appendingPathComponent("handbook.md")
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        try Data("""
        # Staff handbook

        ## Offices

        The Kestrel Lane office is open from 8:00 to 18:00. The staff wifi password at the Kestrel Lane office is violet-harbor-42.

        ## Facilities

        Printers are on the second floor next to the kitchen.
        """.utf8).write(to: handbook)
        #expect(try await cli.run(["docs", "add", handbook.path]).status == 0)
        let question = cli.home.appendingPathComponent("question.wav")
        let speech = try await EspeakSynthesizer().synthesize("What is the capital of France?", options: SpeechOptions(format: .wav))
        try speech.data.write(to: question)

        try await cli.withStarted(["serve", "--port", "0"]) { server in
            let port = try await Self.port(of: server)
            let (status, report) = try await Self.program(
                try #require(ProcessInfo.processInfo.environment["SIBYL_OPENAI_SDK_PYTHON"]),
                [
                    Self.repository.appendingPathComponent("scripts/openai-sdk/check.py").path, "--base-url", "http://127.0.0.1:\(port)/v1",
                    "--expect-word", "Paris", "--audio", question.path, "--audio-expect", "capital",
                ]
            )
            print(report)
            #expect(status == 0, "\(report)")
            #expect(report.contains("PASS docs"))

            // SIGTERM shuts the server down cleanly, and it logged one line per request.
            let ended = await server.stop()
            #expect(ended.status == 0, "stderr: \(ended.stderr)")
            #expect(ended.stderr.contains("POST /v1/chat/completions 200"))
            #expect(!ended.stderr.contains("sk-local-unused"), "the client's key is never logged")
        }
    }
}
