import Foundation
import OpenAITestServer
import SibylCore
import SibylTestSupport

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

    /// Runs `body` with `sibyl` started (`sibyl serve`, say), and stops it afterwards whatever
    /// happens: SIGTERM, its exit awaited (SIGKILL past a generous ceiling). Never left running.
    @discardableResult
    func withStarted<T>(
        _ arguments: [String], input: String? = nil, environment extra: [String: String] = [:], _ body: (Running) async throws -> T
    ) async throws -> T {
        let running = try start(arguments, input: input, environment: extra)
        return try await withTeardown { try await body(running) } teardown: { await running.stop() }
    }

    /// Starts `sibyl` without waiting; whoever starts it stops it (`withStarted` does).
    func start(_ arguments: [String], input: String? = nil, environment extra: [String: String] = [:]) throws -> Running {
        try Self.launch(Self.executable, arguments, input: input, environment: environment.merging(extra) { $1 })
    }

    /// Starts any program the way `start` starts `sibyl` (a helper server a test needs, say).
    static func launch(_ executable: URL, _ arguments: [String], input: String? = nil, environment: [String: String]) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.environment = environment
        let stdout = Pipe(), stderr = Pipe(), stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = stdin
        let exit = Observed<Int32?>(nil)
        process.terminationHandler = { ended in exit.update { $0 = ended.terminationStatus } }
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        return Running(process: process, exit: exit, stdout: stdout, stderr: stderr)
    }

    /// A started `sibyl`; its output is collected as it arrives, and its exit is an event to wait for.
    struct Running: Sendable {
        let process: Process
        /// The exit status once the process has exited (set by its termination handler).
        let exitStatus: Observed<Int32?>
        let stdout: OutputCollector
        let stderr: OutputCollector

        init(process: Process, exit: Observed<Int32?>, stdout: Pipe, stderr: Pipe) {
            self.process = process
            self.exitStatus = exit
            self.stdout = OutputCollector(stdout)
            self.stderr = OutputCollector(stderr)
        }

        /// Waits until standard output (or error) contains `text`, woken by each piece of output;
        /// throws if the output ends without it or past `timeout` (a ceiling against hangs only).
        func waitForOutput(containing text: String, inErrors: Bool = false, timeout: Duration = .seconds(120)) async throws {
            let output = inErrors ? stderr : stdout
            let found = try await output.output.wait(
                for: "\(text.debugDescription) in the \(inErrors ? "errors" : "output") of sibyl \(process.arguments?.joined(separator: " ") ?? ""); it wrote:\n\(output.text)\nand to the other stream:\n\((inErrors ? stdout : stderr).text)",
                within: timeout
            ) { collected in
                if String(decoding: collected.data, as: UTF8.self).contains(text) { return true }
                return collected.closed ? false : nil
            }
            if !found {
                throw NeverWritten(description: "sibyl's \(inErrors ? "errors" : "output") ended without \(text.debugDescription); it wrote:\n\(output.text)\nand to the other stream:\n\((inErrors ? stdout : stderr).text)")
            }
        }

        /// Waits for the process to exit (its termination handler's event).
        func exited() async {
            _ = try? await exitStatus.wait(for: "the exit of sibyl", within: .seconds(3600)) { $0 }
        }

        /// Waits for the process to exit and for its output to drain.
        ///
        /// The output is waited for at most a few seconds after the exit: a grandchild that kept the
        /// pipe open (an engine server, say) must not hang the test. Should the test be cancelled
        /// (its time limit) meanwhile, the process is killed.
        func finish() async -> Result {
            do {
                try await exitStatus.wait(for: "the exit of sibyl \(process.arguments?.joined(separator: " ") ?? "")", within: .seconds(3600)) { $0 != nil }
            } catch {
                kill(process.processIdentifier, SIGKILL)
                _ = try? await exitStatus.wait(for: "the exit of a killed sibyl", within: .seconds(60)) { $0 != nil }
            }
            for output in [stdout, stderr] {
                _ = try? await output.output.wait(for: "the end of sibyl's output", within: .seconds(10)) { $0.closed }
            }
            return Result(status: exitStatus.value ?? -1, stdout: stdout.text, stderr: stderr.text)
        }

        /// Stops the process unless it has ended: SIGTERM, then its exit awaited, with SIGKILL past
        /// a generous ceiling (120 s: a loaded machine may take its time shutting down); what it
        /// wrote comes back.
        @discardableResult
        func stop() async -> Result {
            if exitStatus.value == nil {
                // Only a process not yet reaped is signalled: its id cannot have been reused.
                kill(process.processIdentifier, SIGTERM)
                if (try? await exitStatus.wait(for: "sibyl's exit after SIGTERM", within: .seconds(120)) { $0 != nil }) == nil {
                    print("[cli] sibyl \(process.arguments?.joined(separator: " ") ?? "") still ran 120 s after SIGTERM: killed; it said:\n\(stderr.text)")
                    kill(process.processIdentifier, SIGKILL)
                }
            }
            return await finish()
        }
    }
}

/// The output a test waited for never came: the process ended its output without it.
struct NeverWritten: Error, CustomStringConvertible {
    var description: String
}

/// Gathers a pipe's bytes on a reading thread of its own, never on a cooperative thread; each
/// piece, and the end, wake whoever waits on `output`.
final class OutputCollector: Sendable {
    /// The bytes so far, and whether the pipe has ended.
    let output = Observed<(data: Data, closed: Bool)>((Data(), false))

    init(_ pipe: Pipe) {
        PipeDrain.start(pipe.fileHandleForReading, chunk: { [output] chunk in
            output.update { $0.data.append(chunk) }
        }, ended: { [output] in
            output.update { $0.closed = true }
        })
    }

    var text: String { String(decoding: output.value.data, as: UTF8.self) }

    var isClosed: Bool { output.value.closed }
}

let chatPath = "/v1/chat/completions"

/// Answers streamed chat with `answer`, title requests with `title`.
func answerEverything(_ server: OpenAITestServer, with answer: [String], title: String = "Test Title") {
    server.handle(chatPath) { request in
        request.json?["stream"] as? Bool == true ? .chatStream(answer) : .chatCompletion(title)
    }
}
