import ArgumentParser
import Assistant
import Foundation
import SibylApp
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
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                if let key {
                    let setting = try runtime.admin.setting(key)
                    if json { Terminal.print(Format.json(Wire.Setting(setting))); return }
                    guard let value = setting.value else {
                        Terminal.error(Terminal.dim("(\(key) is not set)", stderr: true))
                        throw ExitCode(1)
                    }
                    Terminal.print(value)
                    return
                }
                let settings = runtime.admin.settings()
                if json { Terminal.print(Format.json(settings.map(Wire.Setting.init))); return }
                Terminal.print(Format.table(["SETTING", "VALUE", "FROM", "MEANING"], settings.map { [$0.key.name, $0.value ?? "-", $0.source.description, $0.key.summary] }))
                let place = runtime.sharedDatabase.map { "Shared settings: the database \($0.database.url); this machine's own: \(runtime.paths.configFile.path)" } ?? "Config file: \(runtime.paths.configFile.path)"
                Terminal.print(Terminal.dim("\n\(place). API keys are not settings: see `sibyl keys`."))
            }
        }
    }

    struct Set: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Write a setting to the config file, or to the shared database with SIBYL_DATABASE_URL (a running `sibyl serve` picks it up at once).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting's name, e.g. chat.base_url.") var key: String
        @Argument(help: "The value.") var value: String

        func run() async throws {
            try await global.withRuntime { runtime in
                let setting = try await runtime.admin.set(key, to: value)
                let stored = (try? ConfigKey.named(key)?.validate(value).get()) ?? value
                let shared = runtime.sharedDatabase != nil && ConfigKey.named(key)?.scope == .shared
                Terminal.print("\(key) = \(stored)" + (shared ? " (in the database: every instance uses it)" : ""))
                if case .environment(let variable) = setting.source {
                    Terminal.error(Terminal.yellow("note: \(variable) is set in the environment and takes precedence (\(key) = \(setting.value ?? "")).", stderr: true))
                }
            }
        }
    }

    struct Unset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a setting from the config file (its default applies again).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The setting's name.") var key: String

        func run() async throws {
            try await global.withRuntime { runtime in
                let setting = try await runtime.admin.unset(key)
                Terminal.print("\(key) is back to \(setting.value ?? "unset").")
            }
        }
    }

    struct Path: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show where Sibyl keeps its data.")
        @OptionGroup var global: GlobalOptions

        func run() async throws {
            try await global.withRuntime { runtime in
                let paths = runtime.paths
                Terminal.print(Format.table(["WHAT", "PATH"], [
                    ["data directory", paths.home.path], ["database", paths.database.path], ["knowledge base", paths.knowledgeDatabase.path],
                    ["config", paths.configFile.path], ["secrets (0600, sealed)", paths.secretsFile.path], ["secrets key (0600)", SecretStore(file: paths.secretsFile).keyFile.path], ["attachments", paths.attachments.path],
                    ["uploaded documents", paths.uploadedDocuments.path], ["logs", paths.logs.path],
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
            try await global.withRuntime { runtime in
                guard let key = Terminal.readSecretLine(prompt: "API key for \(name): ")?.trimmingCharacters(in: .whitespacesAndNewlines), !key.isEmpty else {
                    throw CLIError("No key was given.", hint: "Paste the key when asked, or pipe it in: `printenv MY_KEY | sibyl keys set \(name)`.")
                }
                let stored = try await runtime.admin.setKey(name, to: key)
                if let shared = runtime.sharedDatabase {
                    let fingerprint = shared.settings.recordedFingerprint ?? "?"
                    Terminal.print("Stored key '\(name)' (\(stored.masked)) in the database, sealed with the database key \(fingerprint); every instance holding that key uses it (`sibyl db key export FILE` gives it to others).")
                } else {
                    Terminal.print("Stored key '\(name)' (\(stored.masked)) in \(runtime.paths.secretsFile.path) (owner-only).")
                }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List stored keys, masked.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let keys = try runtime.admin.keys()
                if json { Terminal.print(Format.json(keys.map(Wire.Key.init))); return }
                guard !keys.isEmpty else {
                    Terminal.print("No keys stored. Add one with `sibyl keys set openai`.")
                    return
                }
                Terminal.print(Format.table(["NAME", "KEY", "FROM"], keys.map { [$0.name, $0.masked, $0.source] }))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a stored key.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The key's name.") var name = "openai"

        func run() async throws {
            try await global.withRuntime { runtime in
                try await runtime.admin.removeKey(name)
                Terminal.print("Removed key '\(name)'.")
            }
        }
    }
}
