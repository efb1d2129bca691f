import Foundation
import SibylCore
import Testing
@testable import Knowledge

/// One token per word, so sizes are easy to reason about.
struct WordCounter: TokenCounter {
    func count(_ text: String) -> Int { text.split(whereSeparator: \.isWhitespace).count }
    var isExact: Bool { true }
}

@Suite("Chunking", .timeLimit(.minutes(10)))
struct ChunkerTests {
    let chunker = Chunker(counter: WordCounter(), limitTokens: 256, targetTokens: 40, overlapFraction: 0.15)

    func sentence(_ index: Int, words: Int = 9) -> String {
        (["Sentence", "\(index)"] + Array(repeating: "word", count: words - 3) + ["end."]).joined(separator: " ")
    }

    @Test func sizesOverlapAndOffsetsAreRight() {
        let paragraph = (0..<20).map { sentence($0) }.joined(separator: " ")
        let document = ExtractedDocument(format: .text, blocks: [DocumentBlock(kind: .paragraph, text: paragraph)])
        let chunks = chunker.chunks(of: document)
        let text = Chunker.text(of: document)
        #expect(chunks.count >= 4)
        for chunk in chunks {
            #expect(chunk.tokenCount <= 40)
            let start = text.index(text.startIndex, offsetBy: chunk.startOffset)
            let end = text.index(text.startIndex, offsetBy: chunk.endOffset)
            #expect(String(text[start..<end]) == chunk.text)
        }
        // Consecutive passages share their boundary sentence (the overlap is 6 tokens: less than one 9-word sentence, so none here) …
        // … with a bigger overlap they do.
        let overlapping = Chunker(counter: WordCounter(), limitTokens: 256, targetTokens: 40, overlapFraction: 0.3).chunks(of: document)
        for (first, second) in zip(overlapping, overlapping.dropFirst()) {
            #expect(second.startOffset < first.endOffset, "passages overlap")
            #expect(second.startOffset > first.startOffset)
        }
        // Nothing is lost: every sentence appears in some passage.
        for index in 0..<20 { #expect(chunks.contains { $0.text.contains("Sentence \(index) ") }) }
    }

    @Test func headingsStartPassagesAndGiveTheirPath() {
        let document = ExtractedDocument(format: .markdown, blocks: [
            DocumentBlock(kind: .heading(level: 1), text: "Install"),
            DocumentBlock(kind: .paragraph, text: "Read this first.", headingPath: ["Install"]),
            DocumentBlock(kind: .heading(level: 2), text: "Linux", headingPath: ["Install"]),
            DocumentBlock(kind: .paragraph, text: "Run the installer on Linux.", headingPath: ["Install", "Linux"]),
            DocumentBlock(kind: .heading(level: 2), text: "macOS", headingPath: ["Install"]),
            DocumentBlock(kind: .paragraph, text: "Drag the app.", headingPath: ["Install", "macOS"]),
        ])
        let chunks = chunker.chunks(of: document)
        #expect(chunks.map(\.headingPath) == [["Install"], ["Install", "Linux"], ["Install", "macOS"]])
        #expect(chunks.map(\.text) == ["Install\n\nRead this first.", "Linux\n\nRun the installer on Linux.", "macOS\n\nDrag the app."])
    }

    @Test func aDefinedTermHeadsWhatDescribesIt() {
        // Reference documentation: each signature with its description and version note, and a
        // long entry's continuation still under its signature.
        let long = (0..<12).map { sentence($0) }.joined(separator: " ")
        let document = ExtractedDocument(format: .html, blocks: [
            DocumentBlock(kind: .heading(level: 2), text: "Functions"),
            DocumentBlock(kind: .term, text: "comb(n, k)", headingPath: ["Functions"]),
            DocumentBlock(kind: .listItem, text: "Return the number of ways.", headingPath: ["Functions", "comb(n, k)"]),
            DocumentBlock(kind: .listItem, text: "New in version 3.8.", headingPath: ["Functions", "comb(n, k)"]),
            DocumentBlock(kind: .term, text: "accumulate(iterable)", headingPath: ["Functions"]),
            DocumentBlock(kind: .listItem, text: long, headingPath: ["Functions", "accumulate(iterable)"]),
            DocumentBlock(kind: .listItem, text: "New in version 3.2.", headingPath: ["Functions", "accumulate(iterable)"]),
        ])
        let chunks = chunker.chunks(of: document)
        // The heading that only leads into the entries is in their path, not a passage of its own.
        #expect(chunks.first?.text == "comb(n, k)\n\nReturn the number of ways.\n\nNew in version 3.8.")
        #expect(chunks.first?.headingPath == ["Functions", "comb(n, k)"])
        let entry = chunks.dropFirst(1)
        #expect(entry.count >= 2)
        #expect(entry.allSatisfy { $0.headingPath == ["Functions", "accumulate(iterable)"] })
        #expect(entry.last?.text.hasSuffix("New in version 3.2.") == true)
    }

    @Test func pagesStartPassages() {
        let document = ExtractedDocument(format: .pdf, blocks: [
            DocumentBlock(kind: .paragraph, text: "First page text.", page: 1),
            DocumentBlock(kind: .paragraph, text: "More on page one.", page: 1),
            DocumentBlock(kind: .paragraph, text: "Second page text.", page: 2),
        ], pageCount: 2)
        let chunks = chunker.chunks(of: document)
        #expect(chunks.map(\.page) == [1, 2])
        #expect(chunks[0].text == "First page text.\n\nMore on page one.")
    }

    @Test func preferParagraphEndsWhenCutting() {
        let first = (0..<3).map { sentence($0) }.joined(separator: " ")   // 27 words
        let second = (3..<6).map { sentence($0) }.joined(separator: " ")  // 27 words
        let document = ExtractedDocument(format: .text, blocks: [
            DocumentBlock(kind: .paragraph, text: first), DocumentBlock(kind: .paragraph, text: second),
        ])
        let chunks = chunker.chunks(of: document)
        // 54 words do not fit in 40; the cut falls at the paragraph end (27 ≥ 70 % of 40 = 28? no: 27 < 28),
        // so it falls after sentence 3 instead; either way no passage passes the target.
        #expect(chunks.allSatisfy { $0.tokenCount <= 40 })
        #expect(chunks.first?.text.hasPrefix("Sentence 0") == true)
    }

    @Test func overlongSentencesAndWordsAreSplitWithinTheLimit() {
        let monster = Array(repeating: "word", count: 130).joined(separator: " ") + " " + String(repeating: "x", count: 500)
        let document = ExtractedDocument(format: .text, blocks: [DocumentBlock(kind: .paragraph, text: monster)])
        let characterCounter = Chunker(counter: EstimatingTokenCounter(), limitTokens: 64, targetTokens: 64)
        let chunks = characterCounter.chunks(of: document)
        #expect(chunks.count > 3)
        #expect(chunks.allSatisfy { $0.tokenCount <= 64 })
        #expect(chunks.map(\.text).joined().filter { $0 == "x" }.count >= 500)
    }

    @Test func targetIsCappedAtTheEmbeddersLimit() {
        let capped = Chunker(counter: WordCounter(), limitTokens: 254)
        #expect(capped.targetTokens == 254)
        #expect(capped.overlapTokens == 38)
        #expect(Chunker(counter: WordCounter(), limitTokens: 8192).targetTokens == 400)
    }

    @Test func sentenceSplittingKeepsDecimalsAndHandlesCJK() {
        #expect(Chunker.sentences(in: "Pi is 3.14 exactly. Next one!") == ["Pi is 3.14 exactly. ", "Next one!"])
        #expect(Chunker.sentences(in: "今日は晴れ。明日は雨。") == ["今日は晴れ。", "明日は雨。"])
        #expect(Chunker.sentences(in: "e.g. this stays. Yes.").count == 2)
    }

    @Test func emptyDocumentsGiveNoChunks() {
        #expect(chunker.chunks(of: ExtractedDocument(format: .text, blocks: [])).isEmpty)
        #expect(chunker.chunks(of: ExtractedDocument(format: .text, blocks: [DocumentBlock(kind: .paragraph, text: "   ")])).isEmpty)
    }
}
