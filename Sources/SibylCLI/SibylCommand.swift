public import ArgumentParser
import Assistant
import Foundation
import Logging
import SibylApp
import SibylCore

/// The `sibyl` command's definition; the executable's `@main` type uses it.
public enum SibylCommand {
    /// The root command: its name, help and subcommands.
    public static let configuration = CommandConfiguration(
        commandName: "sibyl",
        abstract: "A self-hostable AI assistant: chat, ask, listen and speak, with OpenAI or a local OpenAI-compatible server.",
        discussion: """
        Data lives in SIBYL_HOME (default ~/.local/share/sibyl). Settings come from the environment \
        (OPENAI_API_KEY, OPENAI_BASE_URL, SIBYL_…) over the config file over defaults: see `sibyl config get`.
        """,
        version: "0.1.0",
        subcommands: [
            Chat.self, Ask.self, Docs.self, Search.self, Eval.self, Conversations.self, Personas.self,
            Transcribe.self, Speak.self, Imagine.self, MonocleCommand.self, GlassesCommand.self, Serve.self,
            Users.self, Providers.self, Models.self, Config.self, Keys.self, Logs.self, DatabaseCommand.self, MCPCommand.self, ToolsCommand.self, MemoryCommand.self,
        ]
    )
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: [.customShort("v"), .long], help: "Log requests and retries to stderr.")
    var verbose = false

    /// The log level: -v means debug, else SIBYL_LOG_LEVEL, else the command's default.
    func logLevel(default fallback: Logger.Level = .warning) -> Logger.Level {
        if verbose { return .debug }
        if let name = ProcessInfo.processInfo.environment["SIBYL_LOG_LEVEL"], let parsed = Logger.Level(rawValue: name) { return parsed }
        return fallback
    }

    /// Sets up logging (to stderr, never to stdout, which carries answers and JSON); `server`
    /// writes lines from a thread of its own (see `LogLineWriter`).
    func bootstrap(defaultLevel: Logger.Level = .warning, server: Bool = false) {
        LoggingBootstrap.once(level: logLevel(default: defaultLevel), server: server)
    }

    /// The logger Sibyl's own code writes to.
    func logger(defaultLevel: Logger.Level = .warning) -> Logger {
        var logger = Logger(label: "sibyl")
        logger.logLevel = logLevel(default: defaultLevel)
        return logger
    }

    /// Runs a command body with Sibyl's runtime; errors go to stderr with what to do next, and the
    /// local engines the body started are stopped whatever happens.
    func withRuntime(_ body: (SibylRuntime) async throws -> Void) async throws {
        try await reportingErrors {
            let runtime = try runtime()
            // A missing engine that the command installs on first use shows its progress.
            let installs = runtime.engineInstalls.subscribe(heartbeat: .seconds(3600))
            let display = Task { await AutoInstallDisplay.follow(installs) }
            func finish() async {
                runtime.engineInstalls.finishAll()
                await display.value
                await runtime.shutdown()
            }
            do {
                // The shared settings are read before anything uses them.
                try await runtime.sharedDatabase?.ready()
                try await body(runtime)
            } catch {
                await finish()
                throw error
            }
            await finish()
        }
    }

    /// Opens Sibyl's data directory and settings.
    func runtime() throws -> SibylRuntime {
        bootstrap()
        Interrupts.shared.install()
        return try SibylRuntime(logger: logger())
    }
}

enum LoggingBootstrap {
    nonisolated(unsafe) private static var done = false

    /// The writer of a server's log lines, once `once(level:server: true)` has run.
    nonisolated(unsafe) private(set) static var serverLines: LogLineWriter?

    static func once(level: Logger.Level, server: Bool = false) {
        guard !done else { return }
        done = true
        if server {
            let writer = LogLineWriter(descriptor: STDERR_FILENO)
            serverLines = writer
            LoggingSystem.bootstrap { label in LineLogHandler(label: label, writer: writer, logLevel: level) }
            return
        }
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

/// Runs a command body; errors go to stderr with what to do next, and the exit code is non-zero.
func reportingErrors(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let exit as ExitCode {
        throw exit
    } catch let error as ValidationError {
        throw error
    } catch {
        Terminal.report(error)
        throw ExitCode.failure
    }
}

/// An error raised by the CLI itself.
struct CLIError: Error, LocalizedError {
    var message: String
    var hint: String?

    init(_ message: String, hint: String? = nil) {
        self.message = message
        self.hint = hint
    }

    var errorDescription: String? { message }
    var recoverySuggestion: String? { hint }
}
