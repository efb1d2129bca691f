import Foundation
import LocalEngines
import Testing

/// Sibyl's MCP server driven by the official Model Context Protocol Python SDK (scripts/mcp: pinned
/// in a virtual environment that scripts/test.sh makes): `sibyl mcp` on stdio, and `/mcp` on
/// `sibyl serve` over streamable HTTP with two accounts' tokens.
@Suite(
    .timeLimit(.minutes(20)), .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["SIBYL_MCP_PYTHON"] != nil
            && EngineInstaller(layout: EngineLayout()).status().filter { ["embeddings"].contains($0.name) }.allSatisfy(\.installed),
        "the MCP SDK environment (scripts/mcp/setup.sh) or the local embeddings are missing"
    )
)
struct MCPCLITests {
    static var python: String { ProcessInfo.processInfo.environment["SIBYL_MCP_PYTHON"] ?? "python3" }
    static var check: String { ServeCLITests.repository.appendingPathComponent("scripts/mcp/check.py").path }

    static func runner() throws -> CLIRunner {
        var cli = try CLIRunner(server: nil)
        // Offline, on the local engines: the embeddings find passages; a decline needs no chat model.
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        return cli
    }

    @Test func anAgentUsesSibylsDocumentsOverStdio() async throws {
        let cli = try Self.runner()
        let allowed = cli.home.appendingPathComponent("shared-notes", isDirectory: true)
        try FileManager.default.createDirectory(at: allowed, withIntermediateDirectories: true)
        try Data("# Parking\n\nVisitors park in bay 7 behind the Kestrel Lane office.\n".utf8).write(to: allowed.appendingPathComponent("parking.md"))
        let outside = cli.home.appendingPathComponent("private.md")
        try Data("# Private\n\nNot for agents.\n".utf8).write(to: outside)
        let run = try await ServeCLITests.program(
            Self.python, [Self.check, "stdio", "--sibyl", CLIRunner.executable.path, "--allow-folder", allowed.path, "--outside", outside.path],
            environment: cli.environment
        )
        print(run.output)
        #expect(run.status == 0, "\(run.output)")
        #expect(run.output.contains("PASS stdio:add_file"))
        #expect(run.output.contains("PASS stdio:outside"))
        // What the agent added is the user's like any other document.
        let listed = try await cli.run(["docs", "list"])
        #expect(listed.stdout.contains("Parking"), "\(listed.stdout)")
    }

    @Test func overHTTPEachAccountSeesOnlyItsOwnDocuments() async throws {
        let cli = try Self.runner()
        for name in ["ada", "bo"] {
            #expect(try await cli.run(["users", "add", name, "--password-stdin"] + (name == "ada" ? ["--admin"] : []), input: "correct-horse-battery\n").status == 0)
        }
        func token(_ name: String) async throws -> String {
            let issued = try await cli.run(["users", "token", name, "--label", "agent"])
            return try #require(issued.stdout.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("sibyl_") }.map(String.init), "\(issued.stdout)")
        }
        let ada = try await token("ada"), bo = try await token("bo")
        try await cli.withStarted(["serve", "--port", "0"]) { server in
            let port = try await ServeCLITests.port(of: server)
            let url = "http://127.0.0.1:\(port)/mcp"
            let run = try await ServeCLITests.program(Self.python, [Self.check, "http", "--url", url, "--token", ada, "--other-token", bo], environment: cli.environment)
            print(run.output)
            #expect(run.status == 0, "\(run.output)")
            #expect(run.output.contains("PASS http:second_account"))
            // Without a token there is no session.
            let refused = try await ServeCLITests.program("/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", url, "-H", "Content-Type: application/json", "-d", "{}"])
            #expect(refused.output == "401")
            let ended = await server.stop()
            #expect(ended.status == 0, "stderr: \(ended.stderr)")
            #expect(!ended.stderr.contains(ada) && !ended.stderr.contains(bo), "tokens are never logged")
        }
    }
}
