import ArgumentParser
import Assistant
import Foundation
import OpenAIClient
import SibylApp
import SibylConfig
import SibylCore

/// `sibyl providers`: which provider serves each capability, and whether it works.
struct Providers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show and check the provider of each capability.",
        subcommands: [Check.self],
        defaultSubcommand: Check.self
    )

    struct Check: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Probe each capability's provider (local engine or remote API) with tiny real requests.",
            discussion: "Image generation is only checked for presence: generating an image costs money."
        )
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let rows = await runtime.admin.checkProviders()
                if json {
                    Terminal.print(Format.json(rows.map(Wire.ProviderCheck.init)))
                    return
                }
                Terminal.print(Format.table(
                    ["CAPABILITY", "USING", "LOCAL ENGINE", "REMOTE", "STATE", "DETAIL"],
                    rows.map { row in
                        let remote = "\(row.provider.baseURL) · \(row.provider.model.isEmpty ? "-" : row.provider.model) · key \(row.provider.apiKey.map { Redaction.mask($0) } ?? "none")"
                        let localEngine = row.localEngine.map { $0.installed ? "installed" : "missing: sibyl models install \($0.name)" } ?? "none"
                        return [row.probe.rawValue, row.provider.isLocal ? "local" : "remote", localEngine, remote, Self.paint(row.status.state), row.status.detail]
                    }
                ))
                for note in runtime.admin.providerNotes(for: rows) { Terminal.print("\n" + note) }
                if rows.contains(where: { ![.available, .present].contains($0.status.state) }) {
                    Terminal.print(Terminal.dim("\nChoose per capability with `sibyl config set <chat|embeddings|stt|tts>.provider local|remote|auto`, and set a remote one with `<capability>.base_url` and `<capability>.model`."))
                }
            }
        }

        private static func paint(_ state: CapabilityStatus.State) -> String {
            switch state {
            case .available: Terminal.green("available")
            case .present: Terminal.green("present")
            case .unavailable: Terminal.yellow("not served")
            case .unauthorized: Terminal.red("key refused")
            case .unreachable: Terminal.red("unreachable")
            case .failed: Terminal.red("failed")
            }
        }
    }
}
