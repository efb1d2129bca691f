import ArgumentParser
import Assistant
import DocumentExtraction
import Foundation
import Knowledge
import LocalEngines

/// `sibyl docs`: the knowledge base of your own documents.
struct Docs: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add your documents to the knowledge base, and inspect or remove them.",
        discussion: "Then ask about them: `sibyl ask --docs \"…\"`, `sibyl search \"…\"`, or /docs on in `sibyl chat`.",
        subcommands: [Add.self, List.self, Show.self, Stats.self, Remove.self, Reindex.self],
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
        @Flag(help: "Print the summary as JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let found = FileDiscovery.files(from: paths)
                for problem in found.problems { Terminal.error(Terminal.yellow("skipped \(problem.input): \(problem.reason)", stderr: true)) }
                guard !found.files.isEmpty else { throw CLIError("No documents found in \(paths.joined(separator: ", ")).", hint: "Give files or folders with .txt, .md, .html, .pdf, .docx or image files.") }
                let setup = try runtime.embeddingSetup()
                let store = try runtime.knowledgeStore()
                let ingestor = Ingestor(store: store, extractor: DocumentExtractor(), embedder: setup.embedder, embeddingModel: setup.model, chunker: runtime.chunker(for: setup))
                let name = collection ?? runtime.settings.value("docs.collection") ?? "default"
                let display = ProgressDisplay()
                let observer = display.observer
                let summary: IngestSummary
                do {
                    summary = try await ingestor.ingest(found.files, collection: name) { event in
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
                try OperationLog.record(runtime, "docs.add", level: summary.failed.isEmpty ? .info : .warning, message: Self.line(summary, collection: name), details: Self.details(summary))
                if json {
                    Terminal.print(Format.json(Self.details(summary)))
                } else {
                    Terminal.print(Self.line(summary, collection: name))
                    let timings = summary.timings
                    if !(summary.added + summary.replaced).isEmpty {
                        Terminal.print(Terminal.dim("extract \(Format.seconds(timings.extract)) · chunk \(Format.seconds(timings.chunk)) · embed \(Format.seconds(timings.embed)) · index \(Format.seconds(timings.index)) · \(summary.pages) pages, \(summary.chunks) passages"))
                    }
                    for failure in summary.failed { Terminal.print(Terminal.red("failed: ") + "\(failure.path): \(failure.error)") }
                }
                if !summary.failed.isEmpty { throw ExitCode(2) }
            }
        }

        static func line(_ summary: IngestSummary, collection: String) -> String {
            var parts = ["\(summary.added.count) added"]
            if !summary.replaced.isEmpty { parts.append("\(summary.replaced.count) updated") }
            if !summary.unchanged.isEmpty { parts.append("\(summary.unchanged.count) unchanged") }
            if !summary.duplicates.isEmpty { parts.append("\(summary.duplicates.count) duplicates skipped") }
            if !summary.failed.isEmpty { parts.append("\(summary.failed.count) failed") }
            return "Collection '\(collection)': " + parts.joined(separator: ", ") + " in \(Format.seconds(summary.elapsed))."
        }

        static func details(_ summary: IngestSummary) -> [String: Any] {
            [
                "added": summary.added.map(\.path), "updated": summary.replaced.map(\.path), "unchanged": summary.unchanged.map(\.path),
                "duplicates": summary.duplicates.map { ["path": $0.path, "of": $0.of] },
                "failed": summary.failed.map { ["path": $0.path, "error": $0.error] },
                "pages": summary.pages, "chunks": summary.chunks, "seconds": Double(summary.elapsed.milliseconds) / 1000,
                "timings_ms": ["extract": summary.timings.extract.milliseconds, "chunk": summary.timings.chunk.milliseconds,
                               "embed": summary.timings.embed.milliseconds, "index": summary.timings.index.milliseconds],
            ]
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List documents with their pages, tokens and passages.")
        @OptionGroup var global: GlobalOptions
        @Option(help: "Only this collection.") var collection: String?
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let store = try runtime.knowledgeStore()
                let collections = try store.collections()
                let chosen = try collection.map { name in try collections.first { $0.name.lowercased() == name.lowercased() } ?? { throw KnowledgeError.unknownCollection(name) }() }
                let documents = try store.documents(in: chosen?.id)
                let names = Dictionary(uniqueKeysWithValues: collections.map { ($0.id, $0.name) })
                if json {
                    Terminal.print(Format.json(documents.map { DocumentJSON.summary($0, collection: names[$0.collectionID] ?? "") }))
                    return
                }
                guard !documents.isEmpty else {
                    Terminal.print("No documents yet. Add some with `sibyl docs add PATH…`.")
                    return
                }
                Terminal.print(Format.table(["ID", "COLLECTION", "DOCUMENT", "FORMAT", "PAGES", "TOKENS", "PASSAGES", "ADDED"], documents.map { document in
                    [String(document.id), names[document.collectionID] ?? "", document.displayName, document.format.rawValue,
                     document.pageCount.map(String.init) ?? "-", String(document.tokenCount), String(document.chunkCount), Format.date(document.addedAt)]
                }))
                let failures = try store.failures(in: chosen?.id)
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

        func run() async throws {
            try await reportingErrors {
                let store = try global.runtime().knowledgeStore()
                let found = try DocumentLookup.find(document, in: store)
                let chunks = try store.chunks(of: found.id)
                Terminal.print(Terminal.bold(found.displayName))
                Terminal.print(Terminal.dim(found.path))
                var lines = [
                    "format \(found.format.rawValue) · \(found.byteCount) bytes · \(found.pageCount.map { "\($0) pages · " } ?? "")\(found.tokenCount) tokens · \(found.chunkCount) passages",
                    "added \(Format.date(found.addedAt)) · sha256 \(found.contentHash.prefix(16))…",
                    "timings: extract \(Format.seconds(found.timings.extract)) · chunk \(Format.seconds(found.timings.chunk)) · embed \(Format.seconds(found.timings.embed)) · index \(Format.seconds(found.timings.index))",
                ]
                if let confidence = found.ocrConfidence { lines.append(String(format: "OCR confidence %.1f", confidence)) }
                for warning in found.warnings { lines.append(Terminal.yellow("warning: \(warning)")) }
                lines.forEach { Terminal.print($0) }
                Terminal.print("\nPassage sizes (tokens):")
                Terminal.print(Histogram.render(chunks.map(\.tokenCount)))
                if passages {
                    for chunk in chunks {
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
            try await reportingErrors {
                let store = try global.runtime().knowledgeStore()
                var rows: [[String]] = []
                var report: [[String: Any]] = []
                for collection in try store.collections() {
                    let documents = try store.documents(in: collection.id)
                    let timings = documents.map(\.timings).reduce(PhaseTimings(), +)
                    let failures = try store.failures(in: collection.id).count
                    let pages = documents.reduce(0) { $0 + ($1.pageCount ?? 0) }
                    let tokens = documents.reduce(0) { $0 + $1.tokenCount }
                    let chunks = documents.reduce(0) { $0 + $1.chunkCount }
                    rows.append([collection.name, collection.embeddingModel ?? "-", String(documents.count), String(pages), String(tokens), String(chunks), String(failures),
                                 "\(Format.seconds(timings.extract)) / \(Format.seconds(timings.chunk)) / \(Format.seconds(timings.embed)) / \(Format.seconds(timings.index))"])
                    report.append(["collection": collection.name, "embedding_model": collection.embeddingModel ?? NSNull(), "dimension": collection.dimension ?? NSNull(),
                                   "documents": documents.count, "pages": pages, "tokens": tokens, "passages": chunks, "failures": failures,
                                   "timings_ms": ["extract": timings.extract.milliseconds, "chunk": timings.chunk.milliseconds, "embed": timings.embed.milliseconds, "index": timings.index.milliseconds]])
                }
                if json { Terminal.print(Format.json(report)); return }
                guard !rows.isEmpty else { Terminal.print("No collections yet. Add documents with `sibyl docs add PATH…`."); return }
                Terminal.print(Format.table(["COLLECTION", "MODEL", "DOCS", "PAGES", "TOKENS", "PASSAGES", "FAILED", "EXTRACT / CHUNK / EMBED / INDEX"], rows))
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a document and everything made from it.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: "The document's id or (part of) its file name.") var document: String

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let store = try runtime.knowledgeStore()
                let found = try DocumentLookup.find(document, in: store)
                try store.removeDocument(found.id)
                try OperationLog.record(runtime, "docs.remove", message: "removed \(found.path)")
                Terminal.print("Removed \(found.displayName) (\(found.chunkCount) passages).")
            }
        }
    }

    struct Reindex: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Re-embed a collection with the current embedding model (after changing it).")
        @OptionGroup var global: GlobalOptions
        @Option(help: "The collection (default: docs.collection).") var collection: String?

        func run() async throws {
            try await reportingErrors {
                let runtime = try global.runtime()
                let setup = try runtime.embeddingSetup()
                let ingestor = Ingestor(store: try runtime.knowledgeStore(), extractor: DocumentExtractor(), embedder: setup.embedder, embeddingModel: setup.model, chunker: runtime.chunker(for: setup))
                let name = collection ?? runtime.settings.value("docs.collection") ?? "default"
                let display = ProgressDisplay()
                let observer = display.observer
                observer(.step("Re-embedding '\(name)' with \(setup.model)"))
                let (documents, chunks) = try await ingestor.reindex(collection: name) { done, total in
                    observer(.progress(Double(done) / Double(max(total, 1)), detail: "\(done)/\(total) documents"))
                }
                display.finish()
                try OperationLog.record(runtime, "docs.reindex", message: "re-embedded \(documents) documents (\(chunks) passages) of '\(name)' with \(setup.model)")
                Terminal.print("Re-embedded \(documents) documents (\(chunks) passages) of '\(name)' with \(setup.model).")
            }
        }
    }
}

/// Finds a document by id or by a piece of its file name.
enum DocumentLookup {
    static func find(_ text: String, in store: KnowledgeStore) throws -> StoredDocument {
        if let id = Int64(text), let document = try store.document(id: id) { return document }
        let matches = try store.documents().filter { $0.path.localizedCaseInsensitiveContains(text) || ($0.title?.localizedCaseInsensitiveContains(text) ?? false) }
        guard let first = matches.first else { throw KnowledgeError.unknownDocument(text) }
        guard matches.count == 1 else {
            throw CLIError("'\(text)' matches \(matches.count) documents: \(matches.prefix(5).map { "\($0.id) \($0.displayName)" }.joined(separator: ", ")).", hint: "Use the document's id.")
        }
        return first
    }
}

/// A document as JSON.
enum DocumentJSON {
    static func summary(_ document: StoredDocument, collection: String) -> [String: Any] {
        [
            "id": document.id, "collection": collection, "path": document.path, "title": document.title ?? NSNull(), "format": document.format.rawValue,
            "pages": document.pageCount ?? NSNull(), "tokens": document.tokenCount, "passages": document.chunkCount,
            "ocr_confidence": document.ocrConfidence ?? NSNull(), "sha256": document.contentHash,
        ]
    }
}

/// A text histogram of passage sizes.
enum Histogram {
    static func render(_ values: [Int], buckets: Int = 8, width: Int = 30) -> String {
        guard let low = values.min(), let high = values.max() else { return "  (no passages)" }
        let span = max(1, high - low + 1)
        let size = max(1, (span + buckets - 1) / buckets)
        var counts = [Int](repeating: 0, count: (span + size - 1) / size)
        for value in values { counts[(value - low) / size] += 1 }
        let most = max(1, counts.max() ?? 1)
        return counts.enumerated().map { index, count in
            let from = low + index * size
            let label = "\(from)–\(from + size - 1)".padding(toLength: 11, withPad: " ", startingAt: 0)
            return "  \(label) \(String(repeating: "█", count: count * width / most)) \(count)"
        }.joined(separator: "\n")
    }
}
