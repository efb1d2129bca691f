import ArgumentParser
import SibylCLI

/// The entry point: `@main` on an async command makes Argument Parser run the async subcommands.
@main
struct Sibyl: AsyncParsableCommand {
    static let configuration = SibylCommand.configuration
}
