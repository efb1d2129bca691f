import ArgumentParser
import Assistant
import Foundation
import SibylApp
import SibylCore

/// `sibyl personas`: the personas the assistant can take on.
struct Personas: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List, add and remove personas (system prompts with optional model settings).",
        subcommands: [List.self, Add.self, Copy.self, Remove.self],
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
                        Self.describe(persona.sampling),
                        persona.summary ?? String(persona.systemPrompt.prefix(60)),
                    ]
                }
                Terminal.print(Format.table(["NAME", "KIND", "MODEL", "SAMPLING", "ABOUT"], rows))
                if prompts {
                    for persona in personas {
                        Terminal.print("\n" + Terminal.bold(persona.name) + "\n" + persona.systemPrompt)
                    }
                }
            }
        }

        /// The values a persona sets, in the options' short names ("temp 0.7, top-p 0.9"); "-" for none.
        static func describe(_ sampling: Sampling) -> String {
            let values: [String?] = [
                sampling.temperature.map { "temp \($0)" },
                sampling.maxTokens.map { "max \($0)" },
                sampling.topP.map { "top-p \($0)" },
                sampling.presencePenalty.map { "presence \($0)" },
                sampling.frequencyPenalty.map { "frequency \($0)" },
            ]
            let set = values.compactMap { $0 }
            return set.isEmpty ? "-" : set.joined(separator: ", ")
        }
    }

    /// The sampling options `add` and `copy` take.
    struct SamplingOptions: ParsableArguments {
        @Option(help: "Sampling temperature (0–2).") var temperature: Double?
        @Option(name: .customLong("max-tokens"), help: "The longest answer, in tokens.") var maxTokens: Int?
        @Option(name: .customLong("top-p"), help: "Nucleus sampling (0–1).") var topP: Double?
        @Option(name: .customLong("presence-penalty"), parsing: .unconditional, help: "Move on to new subjects (-2–2).") var presencePenalty: Double?
        @Option(name: .customLong("frequency-penalty"), parsing: .unconditional, help: "Repeat less (-2–2).") var frequencyPenalty: Double?

        var sampling: Sampling {
            Sampling(temperature: temperature, maxTokens: maxTokens, topP: topP, presencePenalty: presencePenalty, frequencyPenalty: frequencyPenalty)
        }

        func validate() throws {
            do {
                try sampling.check()
            } catch {
                throw ValidationError("--\(error.parameter.replacingOccurrences(of: "_", with: "-")): \(error.description)")
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add or replace a persona of your own.",
            discussion: "Example: sibyl personas add buddy --prompt \"You are a cheerful companion who answers with a joke.\" --temperature 1.0 --top-p 0.9"
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The persona's name.") var name: String
        @Option(help: "The system prompt.") var prompt: String?
        @Option(name: .customLong("prompt-file"), help: "Read the system prompt from a file.") var promptFile: String?
        @Option(help: "A model this persona uses instead of the configured one.") var model: String?
        @OptionGroup var sampling: SamplingOptions
        @Option(help: "A short description for listings.") var summary: String?

        func validate() throws {
            guard (prompt == nil) != (promptFile == nil) else {
                throw ValidationError("Give the system prompt with --prompt TEXT or --prompt-file FILE.")
            }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                var text = prompt ?? ""
                if let promptFile {
                    guard let data = FileManager.default.contents(atPath: promptFile) else { throw CLIError("Cannot read \(promptFile).") }
                    text = String(decoding: data, as: UTF8.self)
                }
                try await runtime.conversations.savePersona(Persona(name: name, systemPrompt: text, model: model, sampling: sampling.sampling, summary: summary))
                Terminal.print("Saved persona \(name). Use it with `sibyl chat --persona \(name)` or /persona \(name).")
            }
        }
    }

    struct Copy: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Copy a persona (a built-in one too) under a new name, changing what you give.",
            discussion: "Example: sibyl personas copy concise terse --temperature 0.3 --max-tokens 60"
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The persona to copy.") var source: String
        @Argument(help: "The copy's name.") var name: String
        @Option(help: "A system prompt instead of the copied one.") var prompt: String?
        @Option(help: "A model instead of the copied one's.") var model: String?
        @OptionGroup var sampling: SamplingOptions
        @Option(help: "A short description instead of the copied one.") var summary: String?

        func run() async throws {
            try await global.withRuntime { runtime in
                let original = try await runtime.conversations.persona(named: source)
                let copy = try await runtime.conversations.copyPersona(
                    original, as: name, prompt: prompt, model: model, sampling: sampling.sampling, summary: summary
                )
                Terminal.print("Copied \(original.name) to \(copy.name). Use it with `sibyl chat --persona \(copy.name)`.")
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
