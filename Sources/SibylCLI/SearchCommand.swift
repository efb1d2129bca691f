public import ArgumentParser
import Assistant
import Foundation
import Knowledge
import SibylApp

extension SearchMode: ExpressibleByArgument {}

/// `sibyl search`: ranked passages from your documents.
struct Search: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Search your documents: ranked passages with scores, document and page/section.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "What to look for.") var query: [String]
    @Option(help: "Only this collection.") var collection: String?
    @Option(help: "Only this document (its id or part of its file name).") var document: String?
    @Option(help: "hybrid (default), vector or lexical (BM25).") var mode: SearchMode = .hybrid
    @Option(name: [.customShort("k"), .long], help: "How many passages.") var limit = 5
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        try await global.withRuntime { runtime in
            let results = try await runtime.documents.search(query.joined(separator: " "), collection: collection, document: document, mode: mode, limit: limit)
            if json {
                Terminal.print(Format.json(results.enumerated().map { Wire.Passage($0.element, rank: $0.offset + 1) }))
                return
            }
            guard !results.isEmpty else {
                Terminal.print("Nothing found. `sibyl docs list` shows what is in the knowledge base.")
                return
            }
            for (rank, result) in results.enumerated() {
                var scores = [String(format: "score %.4f", result.score)]
                if let vector = result.vectorScore { scores.append(String(format: "cosine %.3f", vector)) }
                if let lexical = result.lexicalScore { scores.append(String(format: "bm25 %.2f", lexical)) }
                let location = result.chunk.location.isEmpty ? "" : " — \(result.chunk.location)"
                Terminal.print(Terminal.bold("\(rank + 1). \(result.document.displayName)") + location + Terminal.dim("  (\(scores.joined(separator: ", ")))"))
                Terminal.print(Format.excerpt(result.chunk.text) + "\n")
            }
        }
    }
}
