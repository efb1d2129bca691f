import Assistant
import Foundation
import Knowledge
import SibylCore

/// Answering from the knowledge base, shared by `sibyl ask --docs` and `/docs on` in chat.
struct DocsContext {
    let grounder: DocumentGrounder
    let collection: String?
    let mode: SearchMode

    init(runtime: SibylRuntime, collection: String?, mode: SearchMode) throws {
        grounder = try runtime.grounder(setup: runtime.embeddingSetup())
        self.collection = collection
        self.mode = mode
    }

    func ground(_ question: String) async throws -> DocumentGrounder.Outcome {
        try await grounder.ground(question, collection: collection, mode: mode)
    }

    /// What is said (and saved) instead of an answer when no passage is relevant.
    static func nothingRelevantAnswer(closest: [SearchResult], threshold: Double) -> String {
        guard let best = closest.first else { return "Your documents contain nothing about this, so I won't guess. (The knowledge base is empty or has no match.)" }
        let score = best.vectorScore.map { String(format: "%.2f", $0) } ?? "n/a"
        return "Nothing in your documents answers this well enough, so I won't guess: the closest passage scores \(score), below the threshold of \(String(format: "%.2f", threshold))."
    }

    /// Prints the closest passages with their scores.
    static func printClosest(_ closest: [SearchResult]) {
        guard !closest.isEmpty else { return }
        Terminal.error(Terminal.dim("Closest passages:", stderr: true))
        for result in closest {
            let cosine = result.vectorScore.map { String(format: "cosine %.3f", $0) } ?? "no vector match"
            let location = result.chunk.location.isEmpty ? "" : ", \(result.chunk.location)"
            Terminal.error(Terminal.dim("  \(cosine) — \(result.document.displayName)\(location): \(Search.excerpt(result.chunk.text, length: 100))", stderr: true))
        }
    }

    /// Prints the sources an answer cites.
    static func printSources(_ citations: [Citation]) {
        guard !citations.isEmpty else { return }
        Terminal.print(Terminal.bold("\nSources:"))
        for citation in citations {
            let location = citation.location.isEmpty ? "" : " — \(citation.location)"
            Terminal.print("[\(citation.number)] \(citation.documentTitle)\(location)")
            Terminal.print(Terminal.dim("    “\(Search.excerpt(citation.quote, length: 160))”"))
        }
    }

    static func json(_ citation: Citation) -> [String: Any] {
        [
            "number": citation.number, "document": citation.documentTitle, "path": citation.documentPath, "page": citation.page ?? NSNull(),
            "section": citation.headingPath, "quote": citation.quote, "score": citation.score,
        ]
    }
}
