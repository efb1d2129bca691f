import ArgumentParser
import Assistant
import Foundation
import Knowledge

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
        try await reportingErrors {
            let runtime = try global.runtime()
            let text = query.joined(separator: " ")
            guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { throw ValidationError("Give something to search for.") }
            let setup = try runtime.embeddingSetup()
            let documentID = try document.map { try DocumentLookup.find($0, in: runtime.knowledgeStore()).id }
            let results = try await runtime.retriever(setup: setup).search(text, mode: mode, collection: collection, documentID: documentID, limit: limit)
            if json {
                Terminal.print(Format.json(results.enumerated().map { rank, result in
                    [
                        "rank": rank + 1, "score": result.score, "vector_score": result.vectorScore ?? NSNull(), "lexical_score": result.lexicalScore ?? NSNull(),
                        "document": result.document.displayName, "path": result.document.path, "page": result.chunk.page ?? NSNull(),
                        "section": result.chunk.headingPath, "text": result.chunk.text,
                    ] as [String: Any]
                }))
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
                Terminal.print(Self.excerpt(result.chunk.text) + "\n")
            }
        }
    }

    static func excerpt(_ text: String, length: Int = 300) -> String {
        let flat = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return flat.count > length ? String(flat.prefix(length)) + "…" : flat
    }
}
