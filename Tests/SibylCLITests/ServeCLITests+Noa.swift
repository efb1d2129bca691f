import Foundation
import LocalEngines
import SibylCore
import SibylTestSupport
import Testing

/// `sibyl serve` on the local engines, asked what a Frame wearer asks through Brilliant's Noa app:
/// scripts/noa/check.py sends each request byte for byte as the app's Dart code builds it
/// (scripts/noa/noa_app.py) and reads the reply as the app does. In ServeCLITests' suite, which runs
/// one server at a time: two servers with their engines at once would crowd the two cores.
extension ServeCLITests {
    /// Runs a program (a Python check) to its end: its status, and what it wrote to either stream.
    static func program(_ path: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: await PipeDrain.readToEnd(output.fileHandleForReading), as: UTF8.self)
        await process.exited()
        return (process.terminationStatus, text)
    }

    @Test(.enabled(
        if: (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").contains { FileManager.default.isExecutableFile(atPath: "\($0)/sox") },
        "sox is missing"
    ))
    func theNoaAppsRequestsAreAnsweredAsTheAppReadsThem() async throws {
        let scripts = Self.repository.appendingPathComponent("scripts/noa")
        let selfTest = try await Self.program("/usr/bin/python3", [scripts.appendingPathComponent("noa_app.py").path, "--self-test"], environment: ProcessInfo.processInfo.environment)
        #expect(selfTest.status == 0, "\(selfTest.output)")

        var cli = try CLIRunner(server: nil)
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        cli.environment["SIBYL_CHAT_TEMPERATURE"] = "0"
        cli.environment["SIBYL_SERVE_MAX_UPLOAD_MB"] = "1"
        #expect(try await cli.run(["users", "add", "ada", "--admin", "--password-stdin"], input: "correct-horse-battery\n").status == 0)
        let issued = try await cli.run(["users", "token", "ada", "--label", "Noa app", "--read-only"])
        let token = try #require(issued.stdout.split(whereSeparator: \.isWhitespace).first { $0.hasPrefix("sibyl_") }.map(String.init), "\(issued.stdout)")
        #expect(try await cli.run(["config", "set", "glasses.language", "en"]).status == 0)
        #expect(try await cli.run(["config", "set", "glasses.spoken_answers", "on"]).status == 0)

        try await cli.withStarted(["serve", "--port", "0"]) { server in
            let port = try await Self.port(of: server)
            let check = try await Self.program(
                "/usr/bin/python3",
                [
                    scripts.appendingPathComponent("check.py").path, "--endpoint", "http://127.0.0.1:\(port)/api/v1/noa", "--token", token,
                    "--expect-audio", "--sibyl", CLIRunner.executable.path,
                ],
                environment: cli.environment
            )
            print(check.output)
            #expect(check.status == 0, "\(check.output)")
            let ended = await server.stop()
            #expect(ended.status == 0, "stderr: \(ended.stderr)")
            #expect(!ended.stderr.contains(token), "the token is never logged")
        }
    }
}
