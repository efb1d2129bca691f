import ArgumentParser
import Foundation
import SibylConfig
import SibylCore

/// `sibyl config`: read and change settings.
struct Config: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and change settings (environment variables override the config file, which overrides defaults).",
        subcommands: [Get.self, Set.self, Unset.self, Path.self],
        defaultSubcommand: Get.self
    )

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one setting's value, or all settings with where each value comes from.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "A setting's name, e.g. chat.model.") var key: String?

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                if let key {
                    guard ConfigKey.named(key) != nil else { throw ConfigError.unknownKey(key) }
                    let resolved = runtime.settings.resolve(key)
                    guard let value = resolved.value else {
                        Terminal.error(Terminal.dim("(\(key) is not set)", stderr: true))
                        throw ExitCode(1)
                    }
                    Terminal.print(value)
                    return
                }
                let rows = ConfigKey.all.map { key -> [String] in
                    let resolved = runtime.settings.resolve(key.name)
                    return [key.name, resolved.value ?? "-", resolved.source.description, key.summary]
                }
                Terminal.print(Format.table(["SETTING", "VALUE", "FROM", "MEANING"], rows))
                Terminal.print(Terminal.dim("\nConfig file: \(runtime.paths.configFile.path). API keys are not settings: see `sibyl keys`."))
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a setting to the config file.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting's name, e.g. chat.base_url.") var key: String
        @Argument(help: "The value.") var value: String

        func run() async throws {
            try await reportingErrors {
                var settings = try global.runtime().settings
                try settings.set(key, to: value)
                let resolved = settings.resolve(key)
                Terminal.print("\(key) = \(settings.fileValues[key] ?? value)")
                if case .environment(let variable) = resolved.source {
                    Terminal.error(Terminal.yellow("note: \(variable) is set in the environment and takes precedence (\(key) = \(resolved.value ?? "")).", stderr: true))
                }
            }
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a setting from the config file (its default applies again).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting's name.") var key: String

        func run() async throws {
            try await reportingErrors {
                var settings = try global.runtime().settings
                try settings.unset(key)
                Terminal.print("\(key) is back to \(settings.resolve(key).value ?? "unset").")
            }
        }
    }

    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show where Sibyl keeps its data.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let paths = try global.runtime().paths
                Terminal.print(Format.table(["WHAT", "PATH"], [
                    ["data directory", paths.home.path], ["database", paths.database.path], ["config", paths.configFile.path],
                    ["secrets (0600)", paths.secretsFile.path], ["attachments", paths.attachments.path],
                ]))
            }
        }
    }
}

/// `sibyl keys`: API keys, kept in the owner-only secrets file.
struct Keys: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Store, list and remove API keys (kept in an owner-only file, never printed).",
        subcommands: [Set.self, List.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Store an API key. It is read from the terminal without echo, or from standard input.",
            discussion: "The key never goes on the command line, where shell history and `ps` would show it."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The key's name; capabilities use 'openai' unless `<capability>.key` says otherwise.") var name = "openai"

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                guard let key = Terminal.readSecretLine(prompt: "API key for \(name): ")?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty else {
                    throw CLIError("No key was given.", hint: "Paste the key when asked, or pipe it in: `printenv MY_KEY | sibyl keys set \(name)`.")
                }
                try runtime.settings.secrets.set(key, named: name)
                Terminal.print("Stored key '\(name)' (\(Redaction.mask(key))) in \(runtime.paths.secretsFile.path) (owner-only).")
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List stored keys, masked.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let store = runtime.settings.secrets
                let names = try store.names()
                var rows = try names.map { [$0, Redaction.mask(try store.secret(named: $0) ?? ""), "secrets file"] }
                for variable in ["OPENAI_API_KEY"] + CapabilityKind.allCases.map({ "SIBYL_\($0.rawValue.uppercased())_API_KEY" }) {
                    if let value = runtime.settings.environment[variable], !value.isEmpty {
                        rows.append([variable, Redaction.mask(value), "environment"])
                    }
                }
                guard !rows.isEmpty else {
                    Terminal.print("No keys stored. Add one with `sibyl keys set openai`.")
                    return
                }
                Terminal.print(Format.table(["NAME", "KEY", "FROM"], rows))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a stored key.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The key's name.") var name = "openai"

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                guard try runtime.settings.secrets.remove(named: name) else {
                    throw CLIError("There is no stored key '\(name)'.", hint: "`sibyl keys list` shows the stored keys.")
                }
                Terminal.print("Removed key '\(name)'.")
            }
        }
    }
}
