import Foundation
import LocalEngines
import SibylTestSupport
import TestFixtures
import Testing
import SibylCore

/// `sibyl` with no key and no server: everything runs on the local engines.
@Suite(
    .timeLimit(.minutes(30)), .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().first { $0.name == "chat" }?.installed == true
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local chat engine is not installed (sibyl models install chat)"
    )
)
struct LocalEngineCLITests {
    /// A runner with no provider configured at all, so the local engines are chosen.
    func offlineRunner() throws -> CLIRunner {
        var runner = try CLIRunner(server: nil)
        runner.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        return runner
    }

    @Test func askAnswersOfflineWithStreamUsageAndTimings() async throws {
        let cli = try offlineRunner()
        let result = try await cli.run(["ask", "--json", "--temperature", "0", "--max-tokens", "20", "What is the capital of France? Answer with one word."])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let json = try #require(result.json as? [String: Any])
        #expect((json["answer"] as? String)?.contains("Paris") == true)
        #expect(json["model"] as? String == "qwen2.5-coder-1.5b-instruct")
        let usage = try #require(json["usage"] as? [String: Int])
        #expect((usage["promptTokens"] ?? 0) > 10)
        #expect((usage["completionTokens"] ?? 0) >= 1)
        let timings = try #require(json["timings"] as? [String: Int])
        #expect(timings["timeToFirstTokenMs"] != nil)

        // Streamed to the terminal, and the conversation continues across runs.
        let streamed = try await cli.run(["ask", "-c", "--temperature", "0", "--max-tokens", "30", "And of Italy? One word."])
        #expect(streamed.status == 0, "stderr: \(streamed.stderr)")
        #expect(streamed.stdout.contains("Rome"))
        let list = try #require(try await cli.run(["conversations", "list", "--json"]).conversations)
        #expect(list.first?["messageCount"] as? Int == 4)
        // The server Sibyl started is gone once the command is.
        #expect(await gone("llama-server", withArgument: "qwen2.5-coder-1.5b-instruct", home: cli.home))
    }

    @Test(.enabled(if: EngineInstaller(layout: EngineLayout()).status(of: "chat-fast")?.installed == true, "the fast model is not installed (sibyl models install chat-fast)"))
    func theFastModelAnswersWhenAskedForAndAnUnknownOneIsAClearError() async throws {
        let cli = try offlineRunner()
        let fast = try await cli.run(["ask", "--json", "--model", "fast", "--temperature", "0", "--max-tokens", "10", "What is the capital of France? One word."])
        #expect(fast.status == 0, "stderr: \(fast.stderr)")
        #expect((fast.json as? [String: Any])?["model"] as? String == "qwen2.5-coder-0.5b-instruct")
        let unknown = try await cli.run(["ask", "--model", "gpt-4o", "Hi"])
        #expect(unknown.status != 0)
        #expect(unknown.stderr.contains("no model 'gpt-4o'") && unknown.stderr.contains("fast (qwen2.5-coder-0.5b-instruct)"), "\(unknown.stderr)")
    }

    @Test func providersCheckShowsTheLocalEngines() async throws {
        let result = try await offlineRunner().run(["providers", "check", "--json"])
        let rows = try #require(result.json as? [[String: Any]])
        let chat = try #require(rows.first { $0["capability"] as? String == "chat" })
        #expect(chat["using"] as? String == "local")
        #expect(chat["state"] as? String == "available", "\(chat["detail"] ?? "")")
        for capability in ["stream", "embeddings", "transcription", "translation", "speech"] {
            let row = rows.first { $0["capability"] as? String == capability }
            #expect(row?["using"] as? String == "local", "\(capability)")
            #expect(row?["state"] as? String == "available", "\(capability): \(row?["detail"] ?? "")")
        }
        #expect(rows.first { $0["capability"] as? String == "embeddings" }?["detail"] as? String == "all-MiniLM-L6-v2 in Swift, 384 dimensions")
        #expect(rows.first { $0["capability"] as? String == "images" }?["using"] as? String == "remote")
    }

    /// A reader that goes away (`sibyl ask … | head -c 20`) ends Sibyl like a broken pipe would,
    /// but with its engines stopped: the write fails instead of SIGPIPE killing it on the spot,
    /// which had left llama-server running.
    @Test(.enabled(if: EngineInstaller(layout: EngineLayout()).status(of: "chat-fast")?.installed == true, "the fast model is not installed"))
    func aReaderThatGoesAwayLeavesNoEngineRunning() async throws {
        let cli = try offlineRunner()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "'\(CLIRunner.executable.path)' ask --model fast --max-tokens 200 'Count from one to fifty in words.' | head -c 20"]
        process.environment = cli.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        await process.exited()
        #expect(await gone("llama-server", withArgument: "qwen2.5-coder-0.5b-instruct", home: cli.home))
    }

    /// Whether the llama-server processes with an argument (Sibyl's alias) that a `sibyl` run with
    /// this data directory started (they inherit its SIBYL_HOME; other tests run servers of their
    /// own) are gone. A server being stopped may take a moment on a loaded machine, and nothing
    /// tells this test when it has gone: it looks (in /proc) until it has, with a generous ceiling;
    /// one still there then was left running.
    private func gone(_ name: String, withArgument argument: String, home: URL) async -> Bool {
        (try? await eventually(within: .seconds(120), "\(name) \(argument) to end") {
            runningProcesses(name, withArgument: argument, home: home).isEmpty
        }) != nil
    }

    private func runningProcesses(_ name: String, withArgument argument: String, home: URL) -> [Int32] {
        let marker = "SIBYL_HOME=\(home.path)"
        return ProcessTable.all().filter { pid in
            let parts = ProcessTable.commandLine(of: pid)
            guard parts.first?.hasSuffix(name) == true && parts.contains(argument) else { return false }
            return ProcessTable.environment(of: pid).contains(marker)
        }
    }
}

/// Speech offline: espeak-ng speaks, whisper.cpp listens.
@Suite(
    .timeLimit(.minutes(30)), .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().filter { ["stt", "tts"].contains($0.name) }.allSatisfy(\.installed)
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local speech engines are not installed (sibyl models install stt tts)"
    )
)
struct LocalSpeechCLITests {
    @Test func speakThenTranscribeRoundTrip() async throws {
        var cli = try CLIRunner(server: nil)
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        let wav = cli.home.appendingPathComponent("spoken.wav").path
        let spoken = try await cli.run(["speak", "Please remind me to call my mother tomorrow morning.", "-o", wav])
        #expect(spoken.status == 0, "stderr: \(spoken.stderr)")
        let heard = try await cli.run(["transcribe", wav, "--json"])
        #expect(heard.status == 0, "stderr: \(heard.stderr)")
        let json = try #require(heard.json as? [String: Any])
        let text = (json["text"] as? String ?? "").lowercased()
        for word in ["remind", "call", "mother", "tomorrow", "morning"] {
            #expect(text.contains(word), "heard: \(text)")
        }
        #expect(json["language"] as? String == "en")
    }
}
