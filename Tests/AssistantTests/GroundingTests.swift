import Foundation
@testable import Knowledge
import SibylCore
import Storage
import Testing
@testable import Assistant

@Suite("Grounded answers", .timeLimit(.minutes(10)))
struct GroundingTests {
    let citations = (1...3).map {
        Citation(number: $0, documentTitle: "Doc \($0)", documentPath: "/d\($0).md", page: $0 == 2 ? 7 : nil, headingPath: ["Intro"], quote: "Passage \($0).", score: 0.5)
    }

    @Test func instructionsNumberEverySourceWithItsLocation() {
        let grounding = Grounding(citations: citations)
        #expect(grounding.instructions.contains("[1] Doc 1 (Intro)\nPassage 1."))
        #expect(grounding.instructions.contains("[2] Doc 2 (page 7 · Intro)"))
        #expect(grounding.instructions.contains("cite"))
    }

    @Test func onlyCitedSourcesAreKept() {
        #expect(Grounding.cited(in: "Yes [2], and also [1, 3].", from: citations).map(\.number) == [1, 2, 3])
        #expect(Grounding.cited(in: "It is so [3][3].", from: citations).map(\.number) == [3])
        #expect(Grounding.cited(in: "No references, see [note] and [x1].", from: citations).count == 3)
        #expect(Grounding.referencedNumbers(in: "[12] [a] [4, 5]") == [12, 4, 5])
    }

    @Test func aGroundedAnswerKeepsItsCitationsAndTheModelSeesTheSources() async throws {
        try await EngineFixture.with { fixture in
            fixture.answerEverything(with: ["It is 7 ", "[2]."])
            let conversation = try await fixture.engine.startConversation(source: .cli)
            let all = await events(of: try await fixture.engine.send("Which page?", in: conversation.id, grounding: Grounding(citations: citations)))
            let answer = try #require(all.finished)
            #expect(answer.citations.map(\.number) == [2])
            #expect(try fixture.store.message(id: answer.id)?.citations.map(\.documentPath) == ["/d2.md"])
            let system = try #require(fixture.answerRequests.first?.sentMessages.first)
            #expect(system.role == "system")
            #expect(system.content.contains("Passage 3."))
            let markdown = try fixture.store.exportMarkdown(conversationID: conversation.id)
            #expect(markdown.contains("[2] Doc 2 — page 7 · Intro"))
        }
    }

    @Test func nothingRelevantMeansNoModelCall() async throws {
        let store = try KnowledgeStore.inMemory()
        let grounder = DocumentGrounder(retriever: Retriever(store: store, embedder: ConstantEmbedder()), threshold: 0.3)
        guard case .nothingRelevant(let closest, let threshold) = try await grounder.ground("anything", collection: nil) else {
            Issue.record("an empty knowledge base cannot ground an answer")
            return
        }
        #expect(closest.isEmpty)
        #expect(threshold == 0.3)
    }

    @Test func aSectionsShortEndComesWithThePassageBeforeIt() async throws {
        let store = try KnowledgeStore.inMemory()
        let collection = try #require(try store.collection(named: "default", create: true))
        func passage(_ text: String, _ path: [String], from start: Int) -> ChunkDraft {
            ChunkDraft(text: text, tokenCount: text.split(separator: " ").count, page: nil, headingPath: path, startOffset: start, endOffset: start + text.count)
        }
        let entry = ["math", "math.isclose(a, b)"]
        let description = "math.isclose(a, b) Return True if the values a and b are close to each other."
        // The tail repeats the description's last sentence (the chunker's overlap) before its own.
        let tail = "close to each other. New in version 3.5."
        let other = "math.isqrt(n) Return the integer square root."
        _ = try store.save(
            DocumentDraft(collectionID: collection.id, path: "/d/math.html", title: "math", format: .html, contentHash: "h", byteCount: 1,
                          pageCount: nil, ocrConfidence: nil, warnings: [], timings: PhaseTimings()),
            chunks: [passage(description, entry, from: 0), passage(tail, entry, from: description.count - 21), passage(other, ["math", "math.isqrt(n)"], from: 200)],
            embeddings: [[1, 0, 0], [1, 0, 0], [1, 0, 0]], replacing: nil
        )
        let grounder = DocumentGrounder(retriever: Retriever(store: store, embedder: ConstantEmbedder()), passages: 1)
        guard case .grounded(let grounding, _) = try await grounder.ground("isclose values", collection: nil, mode: .lexical) else {
            Issue.record("no grounding")
            return
        }
        #expect(grounding.citations.map(\.quote) == [description + "\n\nNew in version 3.5."])
        // A short passage that is not its section's end stays out; so does one given on its own.
        let wide = DocumentGrounder(retriever: Retriever(store: store, embedder: ConstantEmbedder()), passages: 3)
        guard case .grounded(let both, _) = try await wide.ground("isclose close", collection: nil, mode: .lexical) else {
            Issue.record("no grounding")
            return
        }
        #expect(both.citations.map(\.quote).sorted() == [description, tail].sorted())
    }

    @Test func recordedAnswersStayInTheConversation() async throws {
        try await EngineFixture.with { fixture in
            let conversation = try await fixture.engine.startConversation(source: .cli)
            try await fixture.engine.record(question: "Q?", answer: "Nothing in your documents.", in: conversation.id)
            #expect(try fixture.store.messages(in: conversation.id).map(\.text) == ["Q?", "Nothing in your documents."])
            #expect(fixture.server.requests.isEmpty)
        }
    }
}

struct ConstantEmbedder: Embedder {
    func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult {
        EmbeddingResult(vectors: texts.map { _ in [1, 0, 0] }, model: "constant", promptTokens: nil)
    }
}
