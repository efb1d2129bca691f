import Foundation
import OpenAITestServer
import SibylCore

/// Runs the built `sibyl` binary as a user would, with its own data directory.
struct CLIRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
        var json: Any? { try? JSONSerialization.jsonObject(with: Data(stdout.utf8)) }
        /// The items of `conversations list --json`.
        var conversations: [[String: Any]]? { (json as? [String: Any])?["items"] as? [[String: Any]] }
    }

    let home: URL
    var environment: [String: String]

    init(server: OpenAITestServer?, extra: [String: String] = [:]) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-cli-\(UUID().uuidString)", isDirectory: true)
        var environment = ["SIBYL_HOME": home.path, "NO_COLOR": "1", "HOME": home.path, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin"]
        if let server { environment["OPENAI_BASE_URL"] = server.baseURL }
        environment["SIBYL_MAX_RETRIES"] = "0"
        self.environment = environment.merging(extra) { $1 }
    }

    /// The `sibyl` executable beside the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("sibyl")
    }

    /// Runs `sibyl` with arguments and optional standard input, and waits for it.
    @discardableResult
    func run(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) async throws -> Result {
        let process = try start(arguments, input: input, environment: extra)
        return await process.finish()
    }

    /// Starts `sibyl` without waiting.
    func start(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) throws -> Running {
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = arguments
        process.environment = environment.merging(extra) { $1 }
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        return Running(process: process, stdout: stdout, stderr: stderr)
    }

    /// A started `sibyl`; its output is collected as it arrives.
    struct Running: Sendable {
        let process: Process
        let stdout: OutputCollector
        let stderr: OutputCollector

        init(process: Process, stdout: Pipe, stderr: Pipe) {
            self.process = process
            self.stdout = OutputCollector(stdout)
            self.stderr = OutputCollector(stderr)
        }

        /// Waits (without blocking a thread) until standard output (or error) contains `text`.
        func waitForOutput(containing text: String, inErrors: Bool = false, timeout: Duration = .seconds(60)) async throws {
            let started = ContinuousClock.now
            while !(inErrors ? stderr : stdout).text.contains(text) {
                guard ContinuousClock.now - started < timeout, process.isRunning else { return }
                try await Task.sleep(for: .milliseconds(50))
            }
        }

        /// Waits for the process to exit and for its output to drain.
        ///
        /// The output is waited for only a few seconds after the exit: a grandchild that kept the
        /// pipe open (an engine server, say) must not hang the test.
        func finish() async -> Result {
            while process.isRunning {
                try? await Task.sleep(for: .milliseconds(20))
            }
            let exited = ContinuousClock.now
            while !(stdout.isClosed && stderr.isClosed), ContinuousClock.now - exited < .seconds(5) {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return Result(status: process.terminationStatus, stdout: stdout.text, stderr: stderr.text)
        }
    }
}

/// Gathers a pipe's bytes on a reading thread of its own, never on a cooperative thread.
final class OutputCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var data = Data()
    private var closed = false

    init(_ pipe: Pipe) {
        PipeDrain.start(pipe.fileHandleForReading, chunk: { [self] chunk in
            lock.lock()
            data.append(chunk)
            lock.unlock()
        }, ended: { [self] in
            lock.lock()
            closed = true
            lock.unlock()
        })
    }

    var text: String {
        lock.lock()
        defer { lock.unlock() }
        return String(decoding: data, as: UTF8.self)
    }

    var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }
}

let chatPath = "/v1/chat/completions"

/// Answers streamed chat with `answer`, title requests with `title`.
func answerEverything(_ server: OpenAITestServer, with answer: [String], title: String = "Test Title") {
    server.handle(chatPath) { request in
        request.json?["stream"] as? Bool == true ? .chatStream(answer) : .chatCompletion(title)
    }
}
