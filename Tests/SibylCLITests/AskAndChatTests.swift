import Foundation
import OpenAITestServer
import Testing

@Suite("sibyl ask and sibyl chat", .timeLimit(.minutes(10)))
struct AskAndChatTests {
    @Test func askStreamsTheAnswerAndSavesIt() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["Four", "."])
            let cli = try CLIRunner(server: server)
            let result = try await cli.run(["ask", "What", "is", "2+2?"])
            #expect(result.status == 0)
            #expect(result.stdout == "Four.\n")
            #expect(result.stderr.contains("10 + 2 tokens"))
            let conversations = try #require(try await cli.run(["conversations", "list", "--json"]).conversations)
            #expect(conversations.count == 1)
            #expect(conversations.first?["title"] as? String == "Test Title")
            #expect(conversations.first?["messageCount"] as? Int == 2)
            #expect(conversations.first?["source"] as? String == "cli")
        }
    }

    @Test func askJSONReportsUsageAndTimings() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["Paris"])
            let result = try await CLIRunner(server: server).run(["ask", "--json", "Capital of France?"])
            #expect(result.status == 0)
            let json = try #require(result.json as? [String: Any])
            #expect(json["answer"] as? String == "Paris")
            #expect(json["status"] as? String == "complete")
            let usage = try #require(json["usage"] as? [String: Int])
            #expect(usage == ["promptTokens": 10, "completionTokens": 1, "totalTokens": 11])
            let timings = try #require(json["timings"] as? [String: Int])
            #expect(timings["totalMs"] != nil)
            #expect(timings["timeToFirstTokenMs"] != nil)
        }
    }

    @Test func askReadsTheQuestionFromStandardInputAndContinues() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["ok"])
            let cli = try CLIRunner(server: server)
            #expect(try await cli.run(["ask"], input: "first question\n").status == 0)
            #expect(try await cli.run(["ask", "-c", "second question"]).status == 0)
            let streamed = server.requests(to: chatPath).compactMap(\.json).filter { $0["stream"] as? Bool == true }
            let last = try #require(streamed.last?["messages"] as? [[String: Any]])
            #expect(last.compactMap { $0["content"] as? String }.suffix(3) == ["first question", "ok", "second question"])
        }
    }

    @Test func apiErrorsGoToStderrWithAHintAndNonZeroExit() async throws {
        try await OpenAITestServer.with { server in
            server.handle(chatPath) { _ in .error(status: 401, message: "Incorrect API key provided: sk-abcdefghijklmnopqrstuv", code: "invalid_api_key") }
            let result = try await CLIRunner(server: server, extra: ["OPENAI_API_KEY": "sk-abcdefghijklmnopqrstuv"]).run(["ask", "hi"])
            #expect(result.status == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("HTTP 401 [invalid_api_key]"))
            #expect(result.stderr.contains("sibyl keys set openai"))
            #expect(!result.stderr.contains("abcdefghijklmnop"))
        }
    }

    @Test func withNothingConfiguredOrInstalledTheErrorSaysWhatToDo() async throws {
        var cli = try CLIRunner(server: nil)
        cli.environment["SIBYL_ENGINES"] = cli.home.appendingPathComponent("no-engines").path
        // Without installing on first use, the error names the command that installs it.
        cli.environment["SIBYL_MODELS_AUTO_INSTALL"] = "off"
        let local = try await cli.run(["ask", "hi"])
        #expect(local.status == 1)
        #expect(local.stderr.contains("The local chat engine is not installed"))
        #expect(local.stderr.contains("sibyl models install chat"))
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("no-engines/downloads").path))
        let remote = try await cli.run(["ask", "hi"], environment: ["SIBYL_CHAT_PROVIDER": "remote"])
        #expect(remote.status == 1)
        #expect(remote.stderr.contains("No API key for chat"))
        #expect(remote.stderr.contains("OPENAI_BASE_URL"))
        #expect(remote.stderr.contains("sibyl keys set openai"))
    }

    @Test func aCutOffAnswerIsKeptAndRetryCompletesIt() async throws {
        try await OpenAITestServer.with { server in
            server.enqueue(.chatStream(["Partial", " answer", " never ends"], dropAfter: 3), for: chatPath)
            let cli = try CLIRunner(server: server)
            let failed = try await cli.run(["ask", "Tell me"])
            #expect(failed.status == 1)
            #expect(failed.stdout == "Partial answer\n")
            #expect(failed.stderr.contains("cut off"))
            answerEverything(server, with: ["Whole answer."])
            let retried = try await cli.run(["ask", "--retry", "-c", "--json"])
            #expect(retried.status == 0)
            #expect((retried.json as? [String: Any])?["answer"] as? String == "Whole answer.")
            let list = try #require(try await cli.run(["conversations", "list", "--json"]).conversations)
            #expect(list.first?["messageCount"] as? Int == 2)
        }
    }

    @Test func ctrlCStopsTheAnswerKeepsItAndExits130() async throws {
        try await OpenAITestServer.with { server in
            server.enqueue(.chatStream(Array(repeating: "la ", count: 100), pause: .milliseconds(100)), for: chatPath)
            let cli = try CLIRunner(server: server)
            try await cli.withStarted(["ask", "Sing"]) { running in
                try await running.waitForOutput(containing: "la la")
                running.process.interrupt()
                let result = await running.finish()
                #expect(result.status == 130)
                #expect(result.stdout.hasPrefix("la la"))
                #expect(result.stderr.contains("stopped"))
                let show = try await cli.run(["conversations", "show", try await latestID(cli)])
                #expect(show.stdout.contains("[stopped]"))
            }
        }
    }

    @Test func chatReadsLinesRunsCommandsAndKeepsHistory() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["Hello there!"])
            let cli = try CLIRunner(server: server)
            let script = "Hi Sibyl\n/mode translator German\nGood morning\n/history\n/persona\n/nonsense\n/exit\n"
            let result = try await cli.run(["chat"], input: script)
            #expect(result.status == 0)
            #expect(result.stdout.contains("Hello there!"))
            #expect(result.stdout.contains("Mode is now translator → German."))
            #expect(result.stdout.contains("Unknown command /nonsense"))
            #expect(result.stdout.contains("Persona: assistant"))
            let streamed = server.requests(to: chatPath).compactMap(\.json).filter { $0["stream"] as? Bool == true }
            let translation = try #require(streamed.last?["messages"] as? [[String: Any]])
            #expect((translation.first?["content"] as? String)?.contains("into German") == true, "stdout: \(result.stdout)\nstderr: \(result.stderr)")
            #expect(translation.count == 2)
        }
    }

    private func latestID(_ cli: CLIRunner) async throws -> String {
        let list = try #require(try await cli.run(["conversations", "list", "--json"]).conversations)
        return try #require(list.first?["id"] as? String)
    }
}
