import AsyncHTTPClient
import Foundation
import Logging
import Subprocess
import SystemPackage

/// A llama.cpp `llama-server` that Sibyl starts on first use, health-checks, restarts if it dies,
/// and stops when Sibyl exits. It speaks the OpenAI API, so chat goes through the same client code
/// as any remote provider.
public actor LlamaServer {
    public struct Configuration: Sendable, Hashable {
        public var executable: URL
        public var model: URL
        /// The model name clients use.
        public var alias: String
        /// Tokens of context per request.
        public var contextPerSlot: Int
        /// Requests served at once (each gets `contextPerSlot` tokens).
        public var slots: Int
        public var threads: Int
        /// Where the server's output goes.
        public var logFile: URL
        public var startupTimeout: Duration

        public init(
            executable: URL,
            model: URL,
            alias: String,
            contextPerSlot: Int = 8192,
            slots: Int = 2,
            threads: Int = ProcessInfo.processInfo.activeProcessorCount,
            logFile: URL,
            startupTimeout: Duration = .seconds(180)
        ) {
            self.executable = executable
            self.model = model
            self.alias = alias
            self.contextPerSlot = contextPerSlot
            self.slots = slots
            self.threads = threads
            self.logFile = logFile
            self.startupTimeout = startupTimeout
        }
    }

    public let configuration: Configuration
    private let logger: Logger
    /// The task that runs the server process; it ends when the process does.
    private var running: Task<Void, Never>?
    private var pid: Int32?
    private var port: Int?
    private var exitStatus: String?
    private var starting: Task<Int, any Error>?
    /// How many times the server was started (more than once means it was restarted).
    public private(set) var launches = 0

    public init(configuration: Configuration, logger: Logger = Logger(label: "sibyl.llama-server")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The server's OpenAI API root, starting (or restarting) the server when it is not running.
    public func baseURL() async throws -> String {
        if isRunning, let port { return "http://127.0.0.1:\(port)/v1" }
        // A caller that comes while the server loads its model waits for that launch (it is not
        // "running" until healthy; taking it for dead once started a second server beside it).
        if let starting { return "http://127.0.0.1:\(try await starting.value)/v1" }
        if running != nil {
            logger.warning("llama-server exited (\(exitStatus ?? "unknown status")); starting it again")
            running = nil
            pid = nil
            port = nil
        }
        let task = Task { try await self.launch() }
        starting = task
        defer { starting = nil }
        return "http://127.0.0.1:\(try await task.value)/v1"
    }

    /// The process id, while running.
    public var processID: Int32? { isRunning ? pid : nil }

    private var isRunning: Bool { running != nil && exitStatus == nil && pid != nil }

    /// Stops the server: SIGTERM, then SIGKILL after 5 seconds.
    public func stop() async {
        guard let running else { return }
        running.cancel()
        await running.value
        if let pid { ChildProcesses.shared.forget(pid) }
        self.running = nil
        self.pid = nil
        self.port = nil
    }

    private func exited(_ status: String) {
        exitStatus = status
        if let pid { ChildProcesses.shared.forget(pid) }
    }

    private func launch() async throws -> Int {
        for file in [configuration.executable, configuration.model] where !FileManager.default.fileExists(atPath: file.path) {
            throw LocalEngineError.notInstalled(component: "chat", missing: file.path)
        }
        let port = try FreePort.find()
        try FileManager.default.createDirectory(at: configuration.logFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: configuration.logFile.path) {
            _ = FileManager.default.createFile(atPath: configuration.logFile.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: configuration.logFile)
        try log.seekToEnd()
        log.write(Data("\n--- \(Date()) starting llama-server on port \(port)\n".utf8))

        let arguments = [
            "--model", configuration.model.path,
            "--alias", configuration.alias,
            "--host", "127.0.0.1",
            "--port", String(port),
            "--ctx-size", String(configuration.contextPerSlot * configuration.slots),
            "--parallel", String(configuration.slots),
            "--threads", String(configuration.threads),
        ]
        let executable = FilePath(configuration.executable.path)
        let (started, startedContinuation) = AsyncStream<Int32>.makeStream()
        exitStatus = nil
        // The process lives as long as this task: its output is copied to the log until it ends;
        // cancelling the task stops it (SIGTERM, then SIGKILL).
        running = Task.detached { [weak self] in
            var options = PlatformOptions()
            options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(5))]
            var status = "could not start"
            do {
                let result = try await Subprocess.run(
                    .path(executable),
                    arguments: Arguments(arguments),
                    platformOptions: options,
                    input: .none,
                    output: .sequence,
                    error: .combinedWithOutput
                ) { execution in
                    startedContinuation.yield(execution.processIdentifier.value)
                    startedContinuation.finish()
                    for try await chunk in execution.standardOutput {
                        chunk.withUnsafeBytes { log.write(Data($0)) }
                    }
                }
                status = "\(result.terminationStatus)"
            } catch {
                status = "\(error)"
            }
            startedContinuation.finish()
            try? log.close()
            await self?.exited(status)
        }
        var launched: Int32?
        for await pid in started { launched = pid }
        guard let launched else {
            throw LocalEngineError.serverDied(status: "it did not start", logTail: Self.tail(of: configuration.logFile), log: configuration.logFile.path)
        }
        pid = launched
        ChildProcesses.shared.remember(launched)
        launches += 1
        logger.info("started llama-server (pid \(launched)) on port \(port)")
        do {
            try await waitUntilHealthy(port: port)
        } catch {
            await stop()
            throw error
        }
        self.port = port
        return port
    }

    /// Polls `/health` until the model is loaded (it answers 503 while loading).
    private func waitUntilHealthy(port: Int) async throws {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < configuration.startupTimeout {
            if let exitStatus {
                throw LocalEngineError.serverDied(status: exitStatus, logTail: Self.tail(of: configuration.logFile), log: configuration.logFile.path)
            }
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/health")
            request.method = .GET
            if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)) {
                _ = try? await response.body.collect(upTo: 1 << 16)
                if response.status.code == 200 { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LocalEngineError.startupTimedOut(seconds: Int(configuration.startupTimeout.components.seconds), log: configuration.logFile.path)
    }

    static func tail(of file: URL, lines: Int = 8) -> String {
        guard let data = FileManager.default.contents(atPath: file.path) else { return "" }
        return String(decoding: data.suffix(8192), as: UTF8.self).split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}
