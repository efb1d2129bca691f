import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylCore

/// `sibyl personas`: the personas the assistant can take on.
struct Personas: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add and remove personas (system prompts with optional model settings).",
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List built-in and your own personas.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Also print each system prompt.") var prompts = false
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let personas = try await runtime.conversations.personas()
                if json {
                    Terminal.print(Format.json(personas.map(Wire.Persona.init)))
                    return
                }
                let rows = personas.map { persona in
                    [
                        persona.name, persona.isBuiltIn ? "built-in" : "yours", persona.model ?? "-",
                        persona.temperature.map { String($0) } ?? "-",
                        persona.summary ?? String(persona.systemPrompt.prefix(60)),
                    ]
                }
                Terminal.print(Format.table(["NAME", "KIND", "MODEL", "TEMP", "ABOUT"], rows))
                if prompts {
                    for persona in personas {
                        Terminal.print("\n" + Terminal.bold(persona.name) + "\n" + persona.systemPrompt)
                    }
                }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or replace a persona of your own.",
            discussion: "Example: sibyl personas add buddy --prompt \"You are a cheerful companion who answers with a joke.\" --temperature 1.0"
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The persona's name.") var name: String
        @Option(help: "The system prompt.") var prompt: String?
        @Option(name: .customLong("prompt-file"), help: "Read the system prompt from a file.") var promptFile: String?
        @Option(help: "A model this persona uses instead of the configured one.") var model: String?
        @Option(help: "Sampling temperature (0–2).") var temperature: Double?
        @Option(help: "A short description for listings.") var summary: String?

        func validate() throws {
            guard (prompt == nil) != (promptFile == nil) else {
                throw ValidationError("Give the system prompt with --prompt TEXT or --prompt-file FILE.")
            }
            if let temperature, !(0...2).contains(temperature) {
                throw ValidationError("--temperature must be between 0 and 2.")
            }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                var text = prompt ?? ""
                if let promptFile {
                    guard let data = FileManager.default.contents(atPath: promptFile) else { throw CLIError("Cannot read \(promptFile).") }
                    text = String(decoding: data, as: UTF8.self)
                }
                try await runtime.conversations.savePersona(Persona(name: name, systemPrompt: text, model: model, temperature: temperature, summary: summary))
                Terminal.print("Saved persona \(name). Use it with `sibyl chat --persona \(name)` or /persona \(name).")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a persona of your own.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The persona's name.") var name: String

        func run() async throws {
            try await global.withRuntime { runtime in
                try await runtime.conversations.removePersona(named: name)
                Terminal.print("Removed persona \(name).")
            }
        }
    }
}
