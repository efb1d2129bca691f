import ArgumentParser
import Foundation

/// `sibyl monocle`: the command tree `sibyl glasses` took over, kept (hidden) so that scripts still
/// work. Each subcommand says on stderr where it moved, then runs there with the same arguments.
struct MonocleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "monocle",
        abstract: "Moved: see `sibyl glasses` (--kind monocle).",
        shouldDisplay: false,
        subcommands: [Scan.self, Pair.self, Unpair.self, Connect.self, Update.self, Emulate.self]
    )

    /// Says where `sibyl monocle NAME` moved, then runs `Moved` with `arguments` (and `--kind monocle`
    /// first, where the kind matters, so that one given later wins).
    static func forward<Moved: AsyncParsableCommand>(_ moved: Moved.Type, _ name: String, arguments: [String], kind: Bool = true) async throws {
        let path = ["glasses", name] + (kind ? ["--kind", "monocle"] : [])
        Terminal.error("`sibyl monocle \(name)` is now `sibyl \(path.joined(separator: " "))`")
        if arguments.contains("--help") || arguments.contains("-h") {
            Terminal.print(Root.helpMessage(for: Moved.self))
            return
        }
        // Parsed from a root of its own, so that help and errors name `sibyl glasses …`.
        guard var command = try Root.parseAsRoot(path + arguments) as? any AsyncParsableCommand else { return }
        try await command.run()
    }

    /// `sibyl` with the glasses tree alone: where the moved commands are parsed.
    private struct Root: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "sibyl", subcommands: [GlassesCommand.self])
    }

    struct Scan: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Moved: sibyl glasses scan --kind monocle.")
        @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
        func run() async throws { try await MonocleCommand.forward(GlassesCommand.Scan.self, "scan", arguments: arguments) }
    }

    struct Pair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Moved: sibyl glasses pair --kind monocle.")
        @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
        func run() async throws { try await MonocleCommand.forward(GlassesCommand.Pair.self, "pair", arguments: arguments) }
    }

    struct Unpair: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Moved: sibyl glasses unpair.")
        @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
        func run() async throws { try await MonocleCommand.forward(GlassesCommand.Unpair.self, "unpair", arguments: arguments, kind: false) }
    }

    struct Connect: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Moved: sibyl glasses connect --kind monocle.")
        @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
        func run() async throws { try await MonocleCommand.forward(GlassesCommand.Connect.self, "connect", arguments: arguments) }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Moved: sibyl glasses update --kind monocle.")
        @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
        func run() async throws { try await MonocleCommand.forward(GlassesCommand.Update.self, "update", arguments: arguments) }
    }

    struct Emulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Moved: sibyl glasses emulate --kind monocle.")
        @Argument(parsing: .captureForPassthrough) var arguments: [String] = []
        func run() async throws { try await MonocleCommand.forward(GlassesCommand.Emulate.self, "emulate", arguments: arguments) }
    }
}
