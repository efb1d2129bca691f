import ArgumentParser
import Assistant
import Foundation
import Logging
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
            Transcribe.self, Speak.self, Imagine.self, MonocleCommand.self,
            Providers.self, Models.self, Config.self, Keys.self, Logs.self,
        ]
    )
}

/// Options every command takes.
struct GlobalOptions: ParsableArguments {
    @Flag(name: [.customShort("v"), .long], help: "Log requests and retries to stderr.")
    var verbose = false

    /// Sets up logging (to stderr, never to stdout, which carries answers and JSON).
    func bootstrap() {
        let level: Logger.Level
        if verbose {
            level = .debug
        } else if let name = ProcessInfo.processInfo.environment["SIBYL_LOG_LEVEL"], let parsed = Logger.Level(rawValue: name) {
            level = parsed
        } else {
            level = .warning
        }
        LoggingBootstrap.once(level: level)
    }

    /// Opens Sibyl's data directory and settings.
    func runtime() throws -> SibylRuntime {
        bootstrap()
        Interrupts.shared.install()
        var logger = Logger(label: "sibyl")
        logger.logLevel = verbose ? .debug : .warning
        return try SibylRuntime(logger: logger)
    }
}

enum LoggingBootstrap {
    nonisolated(unsafe) private static var done = false

    static func once(level: Logger.Level) {
        guard !done else { return }
        done = true
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
        Terminal.error(Terminal.red("error:", stderr: true) + " " + Redaction.redact(error.localizedDescription))
        if let suggestion = (error as? LocalizedError)?.recoverySuggestion {
            Terminal.error(Terminal.dim("hint: ", stderr: true) + suggestion)
        }
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
