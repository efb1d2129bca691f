import Foundation
import Logging

/// A llama.cpp `llama-server` that Sibyl starts on first use, health-checks, restarts if it dies,
/// and stops when Sibyl exits. It speaks the OpenAI API, so chat goes through the same client code
/// as any remote provider.
public struct LlamaServer: Sendable {
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

        /// llama-server's command line.
        func arguments(port: Int) -> [String] {
            [
                "--model", model.path,
                "--alias", alias,
                "--host", "127.0.0.1",
                "--port", String(port),
                "--ctx-size", String(contextPerSlot * slots),
                "--parallel", String(slots),
                "--threads", String(threads),
                // Waiting threads sleep rather than spin: on two cores Piper speaks an answer's
                // first phrase while the model writes ahead, and spinning took its cycles (first
                // phrase spoken 749 → 700 ms after the question, the first token as soon).
                "--poll", "0",
            ]
        }
    }

    public let configuration: Configuration
    private let server: ResidentServer

    public init(configuration: Configuration, logger: Logger = Logger(label: "sibyl.llama-server")) {
        self.configuration = configuration
        server = ResidentServer(
            configuration: .init(
                name: "llama-server",
                component: "chat",
                executable: configuration.executable,
                requiredFiles: [configuration.model],
                arguments: { configuration.arguments(port: $0) },
                logFile: configuration.logFile,
                startupTimeout: configuration.startupTimeout
            ),
            logger: logger
        )
    }

    /// The server's OpenAI API root, starting (or restarting) the server when it is not running.
    public func baseURL() async throws -> String {
        try await server.root() + "/v1"
    }

    /// The process id, while running.
    public var processID: Int32? { get async { await server.processID } }

    /// How many times the server was started (more than once means it was restarted).
    public var launches: Int { get async { await server.launches } }

    /// Stops the server: SIGTERM, then SIGKILL after 5 seconds.
    public func stop() async {
        await server.stop()
    }
}
