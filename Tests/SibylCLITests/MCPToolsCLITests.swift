import Foundation
import OpenAITestServer
import Testing

/// Sibyl as an MCP client: answers call the tools of a server written with the official MCP Python
/// SDK (scripts/mcp/tool_server.py, a made-up warehouse inventory), started by Sibyl over stdio or
/// reached over streamable HTTP. The chat model is the scriptable test server: it calls the tool
/// the first time it is asked, and answers with what the tool returned, citing it by the number
/// Sibyl gave it, once the result is in the conversation.
@Suite(
    .timeLimit(.minutes(20)), .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["SIBYL_MCP_PYTHON"] != nil, "the MCP SDK environment (scripts/mcp/setup.sh) is missing")
)
struct MCPToolsCLITests {
    static var server: String { ServeCLITests.repository.appendingPathComponent("scripts/mcp/tool_server.py").path }
    static let question = "How many crates of cloudberry jam does the Tromsø warehouse hold?"

    static func runner(_ model: OpenAITestServer, servers: String?) throws -> (CLIRunner, URL) {
        // A Python server starting on a loaded machine may take a while: the call's ceiling is one against hangs.
        var cli = try CLIRunner(server: model, extra: ["SIBYL_TITLES": "first-words", "SIBYL_TOOLS_TIMEOUT": "600"])
        let log = cli.home.appendingPathComponent("tool-calls.jsonl")
        // For the server Sibyl starts, in its command line (it inherits nothing else of Sibyl's
        // environment); for the one the HTTP test starts, in its environment.
        cli.environment["TOOL_SERVER_LOG"] = log.path
        cli.environment["OPENAI_API_KEY"] = "sk-not-for-tools"
        if let servers {
            cli.environment["SIBYL_TOOLS"] = "on"
            cli.environment["SIBYL_TOOLS_SERVERS"] = servers.replacingOccurrences(of: "warehouse=", with: "warehouse=TOOL_SERVER_LOG=\(log.path) ")
        }
        return (cli, log)
    }

    /// What reached the tool server, one call a line.
    static func calls(in log: URL) -> [[String: Any]] {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }

    @Test func anAnswerCallsAToolOfACommandSibylStartsAndCitesItsResult() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_stock_level", arguments: #"{"item": "cloudberry jam", "site": "tromso"}"#)
            let (cli, log) = try Self.runner(model, servers: "warehouse=\(MCPCLITests.python) \(Self.server)")
            let result = try await cli.run(["ask", "--json", Self.question])
            #expect(result.status == 0, "\(result.stderr)")
            let answer = try #require(result.json as? [String: Any], "\(result.stdout)\n\(result.stderr)")

            // The server's tools were offered under the server's name, with their schemas.
            let first = try #require(model.requests(to: "/v1/chat/completions").first?.json)
            let offered = (first["tools"] as? [[String: Any]] ?? []).compactMap { $0["function"] as? [String: Any] }
            #expect(Set(offered.compactMap { $0["name"] as? String }) == ["warehouse_stock_level", "warehouse_list_sites", "warehouse_broken", "warehouse_environment_names"])
            let schema = try #require(offered.first { $0["name"] as? String == "warehouse_stock_level" }?["parameters"] as? [String: Any])
            #expect((schema["required"] as? [String])?.sorted() == ["item", "site"])

            // The call reached the real server with the model's arguments.
            let calls = Self.calls(in: log)
            #expect(calls.count == 1)
            #expect(calls.first?["tool"] as? String == "stock_level")
            #expect((calls.first?["arguments"] as? [String: String]) == ["item": "cloudberry jam", "site": "tromso"])

            // The model got the call and its numbered result back, as the OpenAI API has them.
            let second = try #require(model.requests(to: "/v1/chat/completions").dropFirst().first?.json)
            let messages = second["messages"] as? [[String: Any]] ?? []
            let calling = try #require(messages.first { $0["tool_calls"] != nil })
            #expect(((calling["tool_calls"] as? [[String: Any]])?.first?["function"] as? [String: Any])?["name"] as? String == "warehouse_stock_level")
            let toolMessage = try #require(messages.first { $0["role"] as? String == "tool" })
            #expect(toolMessage["tool_call_id"] as? String == "call_7")
            #expect((toolMessage["content"] as? String)?.hasPrefix("[1] The Tromsø warehouse, Storgata 9 holds 42 crates of cloudberry jam") == true)

            // The answer rests on the tool's result and cites it; the call is kept as its source.
            let text = try #require(answer["answer"] as? String)
            #expect(text.contains("42 crates of cloudberry jam [1]"), "\(text)")
            let citations = answer["citations"] as? [[String: Any]] ?? []
            #expect(citations.count == 1)
            let tool = try #require(citations.first?["tool"] as? [String: Any], "\(citations)")
            #expect(tool["server"] as? String == "warehouse")
            #expect(tool["name"] as? String == "stock_level")
            #expect(tool["isError"] as? Bool == false)
            #expect((citations.first?["quote"] as? String)?.contains("42 crates") == true)

            // Saved with the conversation: the thread shows the call later.
            let conversation = try #require(answer["conversationId"] as? String)
            let shown = try await cli.run(["conversations", "show", conversation])
            #expect(shown.stdout.contains("warehouse › stock_level"), "\(shown.stdout)\n\(shown.stderr)")
        }
    }

    @Test func toolsAreOffByDefault() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_stock_level", arguments: #"{"item": "cloudberry jam", "site": "tromso"}"#)
            var (cli, log) = try Self.runner(model, servers: nil)
            // Servers configured, but tools not turned on: nothing is started or offered.
            cli.environment["SIBYL_TOOLS_SERVERS"] = "warehouse=TOOL_SERVER_LOG=\(log.path) \(MCPCLITests.python) \(Self.server)"
            let result = try await cli.run(["ask", "--json", Self.question])
            #expect(result.status == 0, "\(result.stderr)")
            let request = try #require(model.requests(to: "/v1/chat/completions").first?.json)
            #expect(request["tools"] == nil)
            #expect(Self.calls(in: log).isEmpty)
            #expect((result.json as? [String: Any])?["answer"] as? String == "I cannot look that up.")
        }
    }

    @Test func aFailingToolIsShownAndTheAnswerGoesOn() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_broken", arguments: #"{"reason": "disk full"}"#)
            let (cli, log) = try Self.runner(model, servers: "warehouse=\(MCPCLITests.python) \(Self.server)")
            // In the terminal: the call as it is made, the failure, the answer, and the call among the sources.
            let result = try await cli.run(["ask", Self.question])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(result.stderr.contains(#"(calling warehouse › broken {"reason": "disk full"})"#), "\(result.stderr)")
            #expect(result.stderr.contains("the tool failed"), "\(result.stderr)")
            #expect(result.stdout.contains("the inventory database is unreachable: disk full"), "\(result.stdout)")
            #expect(result.stdout.contains("[1] tool warehouse › broken"), "\(result.stdout)")
            #expect(result.stdout.contains("(failed)"), "\(result.stdout)")
            #expect(Self.calls(in: log).first?["tool"] as? String == "broken")
        }
    }

    @Test func aServerThatCannotStartLeavesTheAnswerWithoutItsTools() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_stock_level", arguments: "{}")
            let (cli, _) = try Self.runner(model, servers: "warehouse=\(MCPCLITests.python) -c \"import sys; sys.exit('no inventory here')\"")
            let result = try await cli.run(["ask", "--json", Self.question])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(model.requests(to: "/v1/chat/completions").first?.json?["tools"] == nil)
            #expect((result.json as? [String: Any])?["answer"] as? String == "I cannot look that up.")
            // The user is told which server and what it said.
            #expect(result.stderr.contains("the tools of warehouse are left out"), "\(result.stderr)")
            #expect(result.stderr.contains("no inventory here"), "\(result.stderr)")
        }
    }

    @Test func aServerOverStreamableHTTPIsUsedTheSameWay() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_stock_level", arguments: #"{"item": "lingonberry jam", "site": "bergen"}"#)
            var (cli, log) = try Self.runner(model, servers: nil)
            let server = try CLIRunner.launch(URL(fileURLWithPath: MCPCLITests.python), [Self.server, "--http", "0"], environment: cli.environment)
            defer { kill(server.process.processIdentifier, SIGKILL) }
            try await server.waitForOutput(containing: "Uvicorn running on", inErrors: true, timeout: .seconds(600))
            let line = try #require(server.stderr.text.split(separator: "\n").first { $0.hasPrefix("listening on ") })
            let port = String(line.dropFirst("listening on ".count))
            cli.environment["SIBYL_TOOLS"] = "on"
            cli.environment["SIBYL_TOOLS_SERVERS"] = "warehouse=http://127.0.0.1:\(port)/mcp"
            let result = try await cli.run(["ask", "--json", Self.question])
            #expect(result.status == 0, "\(result.stderr)")
            let answer = try #require(result.json as? [String: Any], "\(result.stdout)\n\(result.stderr)")
            #expect((answer["answer"] as? String)?.contains("118 crates of lingonberry jam [1]") == true, "\(answer)")
            #expect(((answer["citations"] as? [[String: Any]])?.first?["tool"] as? [String: Any])?["server"] as? String == "warehouse")
            #expect(Self.calls(in: log).first?["arguments"] as? [String: String] == ["item": "lingonberry jam", "site": "bergen"])
        }
    }

    @Test func serversAreAddedListedTurnedOnAndRemovedFromTheTerminal() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_list_sites", arguments: "{}")
            let (cli, log) = try Self.runner(model, servers: nil)
            let empty = try await cli.run(["tools"])
            #expect(empty.stdout.contains("do not use tools") && empty.stdout.contains("No MCP servers yet"), "\(empty.stdout)")
            #expect(try await cli.run(["tools", "add", "warehouse", "--", "TOOL_SERVER_LOG=\(log.path)", MCPCLITests.python, Self.server]).status == 0)
            #expect(try await cli.run(["tools", "add", "gone", "--", MCPCLITests.python, "-c", "import sys; sys.exit('closed for the winter')"]).status == 0)
            #expect(try await cli.run(["tools", "add", "two words", "http://127.0.0.1:9/mcp"]).status != 0)

            // Each server with what it offers now, or why it offers nothing (and a failing status).
            let listed = try await cli.run(["tools"])
            #expect(listed.status == 1)
            #expect(listed.stdout.contains("warehouse (command)") && listed.stdout.contains("stock_level"), "\(listed.stdout)")
            #expect(listed.stdout.contains("unreachable: the MCP server gone stopped; it said: closed for the winter"), "\(listed.stdout)")
            let json = try #require(try await cli.run(["tools", "list", "--json"]).json as? [String: Any])
            let servers = json["servers"] as? [[String: Any]] ?? []
            #expect(servers.map { $0["name"] as? String } == ["warehouse", "gone"])
            #expect((servers.first?["tools"] as? [[String: Any]])?.compactMap { $0["calledAs"] as? String }.contains("warehouse_list_sites") == true)

            // Off until turned on; then an answer uses it.
            #expect(try await cli.run(["tools", "remove", "gone"]).status == 0)
            #expect(try await cli.run(["tools", "on"]).status == 0)
            let asked = try await cli.run(["ask", "--json", "Which warehouse sites are there?"])
            #expect(((asked.json as? [String: Any])?["answer"] as? String)?.contains("Bryggen 3") == true, "\(asked.stdout)\n\(asked.stderr)")
            #expect(Self.calls(in: log).map { $0["tool"] as? String } == ["list_sites"])
            #expect(try await cli.run(["tools", "off"]).status == 0)
            let config = try await cli.run(["config", "get", "tools.servers"])
            #expect(config.stdout.contains("warehouse="), "\(config.stdout)")
        }
    }

    @Test func aCallWrittenAsTextByASmallModelIsMadeAndNeverShown() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_stock_level", arguments: #"{"item": "cloudberry jam", "site": "bergen"}"#, asText: true)
            let (cli, log) = try Self.runner(model, servers: "warehouse=\(MCPCLITests.python) \(Self.server)")
            let result = try await cli.run(["ask", Self.question])
            #expect(result.status == 0, "\(result.stderr)")
            #expect(Self.calls(in: log).first?["arguments"] as? [String: String] == ["item": "cloudberry jam", "site": "bergen"])
            #expect(result.stdout.contains("7 crates of cloudberry jam [1]"), "\(result.stdout)")
            // The call's JSON was held back, not streamed as the answer.
            #expect(!result.stdout.contains("```") && !result.stdout.contains(#""name""#), "\(result.stdout)")
        }
    }

    @Test func aServerSibylStartsIsGivenNoneOfSibylsSecrets() async throws {
        try await OpenAITestServer.with { model in
            model.answerWithTool("warehouse_environment_names", arguments: "{}")
            let (cli, _) = try Self.runner(model, servers: "warehouse=\(MCPCLITests.python) \(Self.server)")
            let result = try await cli.run(["ask", "--json", "Which variables do you see?"])
            let quote = try #require(((result.json as? [String: Any])?["citations"] as? [[String: Any]])?.first?["quote"] as? String, "\(result.stdout)\n\(result.stderr)")
            let names = Set(quote.split(separator: " ").map(String.init))
            #expect(names.contains("PATH") && names.contains("TOOL_SERVER_LOG"), "\(names)")
            // Sibyl's key, home and settings stay with Sibyl.
            #expect(names.isDisjoint(with: ["OPENAI_API_KEY", "OPENAI_BASE_URL", "SIBYL_HOME", "SIBYL_TOOLS_SERVERS"]), "\(names)")
        }
    }
}
