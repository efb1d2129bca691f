import AsyncHTTPClient
import Foundation
import Logging
import Subprocess
import SystemPackage

/// An engine that runs as a local HTTP server (llama.cpp's `llama-server`, whisper.cpp's
/// `whisper-server`): started on first use on a free loopback port, health-checked, started again
/// if it dies, and stopped when Sibyl exits. The model is loaded once, not per request.
public actor ResidentServer {
    public struct Configuration: Sendable {
        /// The program's name in logs and errors ("llama-server").
        public var name: String
        /// The component that installs it, for the remedy when something is missing.
        public var component: String
        public var executable: URL
        /// Files that must exist before starting (the model).
        public var requiredFiles: [URL]
        /// The command line for a port.
        public var arguments: @Sendable (_ port: Int) -> [String]
        /// Answers 200 once the model is loaded.
        public var healthPath: String
        /// Where the server's output goes.
        public var logFile: URL
        public var startupTimeout: Duration
        /// Run once after each start, before the first caller is answered (a warm-up request).
        public var warmUp: (@Sendable (_ root: String) async throws -> Void)?

        public init(
            name: String,
            component: String,
            executable: URL,
            requiredFiles: [URL],
            arguments: @escaping @Sendable (_ port: Int) -> [String],
            healthPath: String = "/health",
            logFile: URL,
            startupTimeout: Duration = .seconds(180),
            warmUp: (@Sendable (_ root: String) async throws -> Void)? = nil
        ) {
            self.name = name
            self.component = component
            self.executable = executable
            self.requiredFiles = requiredFiles
            self.arguments = arguments
            self.healthPath = healthPath
            self.logFile = logFile
            self.startupTimeout = startupTimeout
            self.warmUp = warmUp
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

    public init(configuration: Configuration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
    }

    /// The server's root URL (`http://127.0.0.1:PORT`), starting (or restarting) the server when
    /// it is not running.
    public func root() async throws -> String {
        if isRunning, let port { return Self.root(port) }
        // A caller that comes while the server loads its model waits for that launch (it is not
        // "running" until healthy; taking it for dead once started a second server beside it).
        if let starting { return Self.root(try await starting.value) }
        if running != nil {
            logger.warning("\(configuration.name) exited (\(exitStatus ?? "unknown status")); starting it again")
            running = nil
            pid = nil
            port = nil
        }
        let task = Task { try await self.launch() }
        starting = task
        defer { starting = nil }
        return Self.root(try await task.value)
    }

    private static func root(_ port: Int) -> String { "http://127.0.0.1:\(port)" }

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
        for file in [configuration.executable] + configuration.requiredFiles where !FileManager.default.fileExists(atPath: file.path) {
            throw LocalEngineError.notInstalled(component: configuration.component, missing: file.path)
        }
        let port = try FreePort.find()
        try FileManager.default.createDirectory(at: configuration.logFile.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: configuration.logFile.path) {
            _ = FileManager.default.createFile(atPath: configuration.logFile.path, contents: nil)
        }
        let log = try FileHandle(forWritingTo: configuration.logFile)
        try log.seekToEnd()
        log.write(Data("\n--- \(Date()) starting \(configuration.name) on port \(port)\n".utf8))

        let arguments = configuration.arguments(port)
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
            throw LocalEngineError.serverDied(server: configuration.name, component: configuration.component, status: "it did not start", logTail: Self.tail(of: configuration.logFile), log: configuration.logFile.path)
        }
        pid = launched
        ChildProcesses.shared.remember(launched)
        launches += 1
        logger.info("started \(configuration.name) (pid \(launched)) on port \(port)")
        do {
            try await waitUntilHealthy(port: port)
            try await configuration.warmUp?(Self.root(port))
        } catch {
            await stop()
            throw error
        }
        self.port = port
        return port
    }

    /// Polls the health path until the model is loaded (llama-server answers 503 while loading).
    private func waitUntilHealthy(port: Int) async throws {
        let started = ContinuousClock.now
        while ContinuousClock.now - started < configuration.startupTimeout {
            if let exitStatus {
                throw LocalEngineError.serverDied(server: configuration.name, component: configuration.component, status: exitStatus, logTail: Self.tail(of: configuration.logFile), log: configuration.logFile.path)
            }
            var request = HTTPClientRequest(url: Self.root(port) + configuration.healthPath)
            request.method = .GET
            if let response = try? await HTTPClient.shared.execute(request, timeout: .seconds(2)) {
                _ = try? await response.body.collect(upTo: 1 << 16)
                if response.status.code == 200 { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw LocalEngineError.startupTimedOut(server: configuration.name, component: configuration.component, seconds: Int(configuration.startupTimeout.components.seconds), log: configuration.logFile.path)
    }

    static func tail(of file: URL, lines: Int = 8) -> String {
        guard let data = FileManager.default.contents(atPath: file.path) else { return "" }
        return String(decoding: data.suffix(8192), as: UTF8.self).split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}
