import ArgumentParser
import Assistant
import Foundation
import Knowledge
import SibylApp
import SibylCore

/// `sibyl docs`: the knowledge base of your own documents.
struct Docs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add your documents to the knowledge base, and inspect or remove them.",
        discussion: "Then ask about them: `sibyl ask --docs \"…\"`, `sibyl search \"…\"`, or /docs on in `sibyl chat`.",
        subcommands: [Add.self, List.self, Show.self, Stats.self, Remove.self, Reindex.self, Collection.self],
        defaultSubcommand: List.self
    )

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add files, folders (recursively) or glob patterns: .txt .md .html .pdf .docx .png .jpg .tif.",
            discussion: "Unchanged files are skipped, changed ones replaced, and a file that fails does not stop the others."
        )
        @OptionGroup var global: GlobalOptions
        @Argument(help: "Files, folders or quoted glob patterns.") var paths: [String]
        @Option(help: "The collection to add to (default: docs.collection, normally 'default').") var collection: String?
        @Option(
            name: .customLong("ocr-languages"),
            help: "Languages scans and images are read in, such as ko or en,id (default: docs.ocr_languages, normally en)."
        ) var ocrLanguages: String?
        @Flag(help: "Print the summary as JSON.") var json = false

        func validate() throws {
            if let ocrLanguages, OCRLanguages(ocrLanguages) == nil {
                throw ValidationError("--ocr-languages: '\(ocrLanguages)' names no language; give en, ko, id or tesseract's codes (eng, kor, ind), separated by commas.")
            }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                let display = ProgressDisplay()
                let observer = display.observer
                let addition: DocumentAddition
                do {
                    addition = try await runtime.documents.add(paths: paths, collection: collection, ocrLanguages: ocrLanguages.flatMap { OCRLanguages($0) }) { event in
                        switch event {
                        case .started: break
                        case .file(let url, let index, let total): observer(.step("[\(index)/\(total)] \(url.lastPathComponent)"))
                        case .phase(_, let phase): observer(.output(phase.rawValue))
                        case .finished(let url, let outcome):
                            if case .failed(let error) = outcome { Terminal.error(Terminal.red("✗ \(url.lastPathComponent): ", stderr: true) + error) }
                        }
                    }
                } catch {
                    display.finish()
                    throw error
                }
                display.finish()
                for problem in addition.problems { Terminal.error(Terminal.yellow("skipped \(problem.input): \(problem.reason)", stderr: true)) }
                let summary = addition.summary
                if json {
                    Terminal.print(Format.json(Wire.IngestReport(addition)))
                } else {
                    Terminal.print(SibylRuntime.Documents.describe(summary, collection: addition.collection))
                    let timings = summary.timings
                    if !(summary.added + summary.replaced).isEmpty {
                        Terminal.print(Terminal.dim("extract \(Format.seconds(timings.extract)) · chunk \(Format.seconds(timings.chunk)) · embed \(Format.seconds(timings.embed)) · index \(Format.seconds(timings.index)) · \(summary.pages) pages, \(summary.chunks) passages"))
                    }
                    for failure in summary.failed { Terminal.print(Terminal.red("failed: ") + "\(failure.path): \(failure.error)") }
                }
                if !summary.failed.isEmpty { throw ExitCode(2) }
            }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List documents with their pages, tokens and passages.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this collection.") var collection: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let documents = try await runtime.documents.list(in: collection)
                if json {
                    Terminal.print(Format.json(documents.map { Wire.Document($0.document, collection: $0.collection) }))
                    return
                }
                guard !documents.isEmpty else {
                    Terminal.print("No documents yet. Add some with `sibyl docs add PATH…`.")
                    return
                }
                Terminal.print(Format.table(["ID", "COLLECTION", "DOCUMENT", "FORMAT", "PAGES", "TOKENS", "PASSAGES", "ADDED"], documents.map { listing in
                    let document = listing.document
                    return [String(document.id), listing.collection, document.displayName, document.format.rawValue,
                            document.pageCount.map(String.init) ?? "-", String(document.tokenCount), String(document.chunkCount), Format.date(document.addedAt)]
                }))
                let failures = try await runtime.documents.failures(in: collection)
                if !failures.isEmpty {
                    Terminal.print("\n" + Terminal.red("Failed files:"))
                    for failure in failures { Terminal.print("  \(failure.path): \(failure.error)") }
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show one document: its statistics, passage sizes and phase timings.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document's id or (part of) its file name.") var document: String
        @Flag(help: "Also print every passage.") var passages = false
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let details = try await runtime.documents.details(document)
                if json {
                    Terminal.print(Format.json(Wire.DocumentDetails(details, includePassages: passages)))
                    return
                }
                let found = details.document
                Terminal.print(Terminal.bold(found.displayName))
                Terminal.print(Terminal.dim(found.path))
                var lines = [
                    "collection \(details.collection) · format \(found.format.rawValue) · \(found.byteCount) bytes · \(found.pageCount.map { "\($0) pages · " } ?? "")\(found.tokenCount) tokens · \(found.chunkCount) passages",
                    "added \(Format.date(found.addedAt)) · sha256 \(found.contentHash.prefix(16))…",
                    "timings: extract \(Format.seconds(found.timings.extract)) · chunk \(Format.seconds(found.timings.chunk)) · embed \(Format.seconds(found.timings.embed)) · index \(Format.seconds(found.timings.index))",
                ]
                if let confidence = found.ocrConfidence { lines.append(String(format: "OCR confidence %.1f", confidence)) }
                for warning in found.warnings { lines.append(Terminal.yellow("warning: \(warning)")) }
                lines.forEach { Terminal.print($0) }
                Terminal.print("\nPassage sizes (tokens):")
                Terminal.print(Histogram.render(Wire.DocumentDetails.histogram(details.passages.map(\.tokenCount))))
                if passages {
                    for chunk in details.passages {
                        Terminal.print("\n" + Terminal.bold("#\(chunk.ordinal)") + Terminal.dim(" \(chunk.tokenCount) tokens \(chunk.location)"))
                        Terminal.print(chunk.text)
                    }
                }
            }
        }
    }

    struct Stats: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Totals per collection: documents, pages, tokens, passages, timings and failures.")
        @OptionGroup var global: GlobalOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await global.withRuntime { runtime in
                let statistics = try await runtime.documents.statistics()
                if json { Terminal.print(Format.json(statistics.map(Wire.CollectionStatistics.init))); return }
                guard !statistics.isEmpty else { Terminal.print("No collections yet. Add documents with `sibyl docs add PATH…`."); return }
                // With Pinecone, each collection's namespace and the vectors Pinecone counts there.
                let pinecone = statistics.contains { $0.pinecone != nil }
                let headers = ["COLLECTION", "MODEL", "DOCS", "PAGES", "TOKENS", "PASSAGES", "FAILED", "EXTRACT / CHUNK / EMBED / INDEX"] + (pinecone ? ["NAMESPACE", "VECTORS"] : [])
                Terminal.print(Format.table(headers, statistics.map { row in
                    let timings = row.timings
                    var cells = [row.collection.name, row.collection.embeddingModel ?? "-", String(row.documents), String(row.pages), String(row.tokens), String(row.passages), String(row.failures),
                                 "\(Format.seconds(timings.extract)) / \(Format.seconds(timings.chunk)) / \(Format.seconds(timings.embed)) / \(Format.seconds(timings.index))"]
                    if let place = row.pinecone { cells += [place.namespace, place.vectors.map(String.init) ?? "?"] }
                    return cells
                }))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a document and everything made from it.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document's id or (part of) its file name.") var document: String

        func run() async throws {
            try await global.withRuntime { runtime in
                let removed = try await runtime.documents.remove(document)
                Terminal.print("Removed \(removed.displayName) (\(removed.chunkCount) passages).")
            }
        }
    }

    struct Collection: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Rename or remove a collection (with Pinecone, its namespace moves or goes too).",
            subcommands: [Rename.self, Remove.self]
        )

        struct Rename: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Give a collection another name; its documents stay.")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The collection.") var name: String
            @Argument(help: "Its new name (letters, digits, spaces, '-', '_', '.').") var newName: String

            func run() async throws {
                try await global.withRuntime { runtime in
                    let renamed = try await runtime.documents.renameCollection(name, to: newName)
                    Terminal.print("Renamed '\(name)' to '\(renamed.name)'.")
                }
            }
        }

        struct Remove: AsyncParsableCommand {
            static let configuration = CommandConfiguration(abstract: "Remove a collection with all its documents.")
            @OptionGroup var global: GlobalOptions
            @Argument(help: "The collection.") var name: String
            @Flag(help: "Do not ask first.") var yes = false

            func run() async throws {
                try await global.withRuntime { runtime in
                    let documents = try await runtime.documents.list(in: name).count
                    if !yes {
                        guard Terminal.confirm("Remove '\(name)' and its \(documents) document\(documents == 1 ? "" : "s")?") else {
                            throw CLIError("Nothing removed: confirm at a terminal, or pass --yes.")
                        }
                    }
                    try await runtime.documents.deleteCollection(name)
                    Terminal.print("Removed '\(name)' (\(documents) document\(documents == 1 ? "" : "s")).")
                }
            }
        }
    }

    struct Reindex: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-embed a collection with the current embedding model (after changing it).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The collection (default: docs.collection).") var collection: String?

        func run() async throws {
            try await global.withRuntime { runtime in
                let display = ProgressDisplay()
                let observer = display.observer
                observer(.step("Re-embedding '\(collection ?? runtime.defaultCollection)'"))
                let done = try await runtime.documents.reindex(collection: collection) { done, total in
                    observer(.progress(Double(done) / Double(max(total, 1)), detail: "\(done)/\(total) documents"))
                }
                display.finish()
                Terminal.print("Re-embedded \(done.documents) documents (\(done.passages) passages) of '\(done.collection)' with \(done.model).")
            }
        }
    }
}

/// A text histogram of passage sizes.
enum Histogram {
    static func render(_ bins: [Wire.HistogramBin], width: Int = 30) -> String {
        guard !bins.isEmpty else { return "  (no passages)" }
        let most = max(1, bins.map(\.count).max() ?? 1)
        return bins.map { bin in
            let label = "\(bin.from)–\(bin.to)".padding(toLength: 11, withPad: " ", startingAt: 0)
            return "  \(label) \(String(repeating: "█", count: bin.count * width / most)) \(bin.count)"
        }.joined(separator: "\n")
    }
}
