import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

/// Fuzzing of every reader through the public `DocumentExtractor`: thousands of damaged files per
/// format, made deterministically from the seed corpus, each written to disk under its format's
/// extension as an upload would be. A thrown error is a fine answer to a damaged file; only a crash,
/// a hang (one input over 10 s) or runaway memory (a peak over 1 GB) fails.
///
/// Serialized: formats run one after another, so a format's time is not shared with another format
/// (the server's parser fuzz suite may still run beside them), and the peak memory printed after
/// each format is the process's peak up to then.
@Suite(.timeLimit(.minutes(60)), .serialized)
struct ExtractorFuzzTests {
    /// OCR answers at once from a stand-in, so that pages without a text layer are still rendered by
    /// poppler and cairo (a path worth fuzzing) without a tesseract run per input. The low resolution
    /// keeps each rendering small; the size cap for huge pages still applies.
    static let extractor = DocumentExtractor(
        options: .init(ocrResolution: 24),
        recognizer: ScriptedRecognizer(text: "Scanned words", confidences: [70])
    )

    @Test func plainText() async throws {
        try await Self.fuzz("text", extensions: ["txt", "text"], Mutator(corpus: FuzzCorpus.plainText, dictionary: FuzzCorpus.plainTextTokens))
    }

    @Test func markdown() async throws {
        try await Self.fuzz("markdown", extensions: ["md", "markdown"], Mutator(corpus: FuzzCorpus.markdown, dictionary: FuzzCorpus.markdownTokens))
    }

    @Test func html() async throws {
        try await Self.fuzz("html", extensions: ["html", "htm", "xhtml"], Mutator(corpus: FuzzCorpus.html, dictionary: FuzzCorpus.htmlTokens))
    }

    @Test func pdf() async throws {
        let corpus = try FuzzCorpus.pdf(scan: try FuzzCorpus.smallScan())
        try await Self.fuzz("pdf", extensions: ["pdf"], Mutator(corpus: corpus, dictionary: FuzzCorpus.pdfTokens))
    }

    /// Half the inputs are damaged zip files (the container reader's turn); the other half are intact
    /// zips around a damaged part, re-zipped, which is the only way mutations reach the XML readers
    /// past the checksums.
    @Test func docx() async throws {
        let packages = Mutator(corpus: try FuzzCorpus.docxPackages(), rawDictionary: FuzzCorpus.zipTokens)
        let parts = FuzzCorpus.docxParts
        // Every part is in each part's corpus, so splices can graft one part's XML into another's.
        let partMutator = Mutator(corpus: parts.map(\.1), dictionary: FuzzCorpus.docxXMLTokens)
        let documentPart = parts.firstIndex { $0.0 == "word/document.xml" } ?? 0
        let runSeed = FuzzSettings.seed(for: "docx")
        try await Self.fuzz("docx") { index, folder in
            var random = Mutator.generator(runSeed: runSeed, index: index)
            let file = folder.appendingPathComponent("input-\(index).docx")
            if random.oneIn(2) {
                let seed = packages.corpus[random.below(packages.corpus.count)]
                try Data(packages.mutate(seed, using: &random)).write(to: file)
            } else {
                // document.xml half the time: it holds the text and has the most parser states.
                let target = random.oneIn(2) ? documentPart : random.below(parts.count)
                var mutated = parts
                mutated[target].1 = Data(partMutator.mutate([UInt8](parts[target].1), using: &random))
                if random.oneIn(16) { mutated.remove(at: random.below(mutated.count)) }
                try DOCXBuilder.write(mutated, to: file)
            }
            return file
        }
    }

    /// The image path up to OCR: the format sniffing that decides whether a file is an image at all,
    /// and the handling of the recognizer's answer or refusal (the stand-in refuses all but PNG).
    @Test func imageDetection() async throws {
        let corpus = FuzzCorpus.images(scan: try FuzzCorpus.smallScan())
        try await Self.fuzz("image", extensions: ["png", "jpg", "jpeg", "tif", "tiff"], Mutator(corpus: corpus, rawDictionary: FuzzCorpus.imageTokens))
    }

    /// Damaged images through the real tesseract: 100 by default, not 10,000. Each input starts a
    /// tesseract process (about 55 ms here even for an input it refuses at once, up to a quarter of a
    /// second for one it reads), so 10,000 would take ten minutes or more, past CI's budget. What this checks is that
    /// tesseract, which runs in a child process, turns any input it chokes on into an error for
    /// Sibyl rather than a crash or a hang; the sniffing before it gets the full run above.
    /// `SIBYL_FUZZ_OCR_INPUTS` runs more.
    @Test(.enabled(if: Engines.tesseractRuns, "tesseract is not installed (sibyl models install ocr)"))
    func imagesThroughTesseract() async throws {
        let count = ProcessInfo.processInfo.environment["SIBYL_FUZZ_OCR_INPUTS"].flatMap { Int($0) } ?? min(FuzzSettings.inputCount, 100)
        let corpus = FuzzCorpus.images(scan: try FuzzCorpus.smallScan())
        try await Self.fuzz("image-ocr", extensions: ["png", "jpg", "tif"], Mutator(corpus: corpus, rawDictionary: FuzzCorpus.imageTokens), count: count, extractor: DocumentExtractor.withOCR())
    }

    @Test func theMutatorIsDeterministic() {
        let mutator = Mutator(corpus: FuzzCorpus.html, dictionary: FuzzCorpus.htmlTokens)
        let first = (0..<300).map { mutator.input(runSeed: 42, index: $0) }
        #expect(first == (0..<300).map { mutator.input(runSeed: 42, index: $0) })
        // Any one input can be rebuilt alone, without the ones before it.
        #expect(mutator.input(runSeed: 42, index: 299) == first[299])
        #expect(first != (0..<300).map { mutator.input(runSeed: 43, index: $0) })
        // Nearly every input differs from its seed: the run is not spent re-reading the corpus.
        let unchanged = first.filter { FuzzCorpus.html.contains($0) }.count
        #expect(unchanged < 10)
    }

    /// The hang guard itself: an input that stalls is reported and stops its run, rather than
    /// stalling the suite (shown here with a short limit, so the test does not take 10 s).
    @Test func theHangGuardStopsARunThatStalls() async throws {
        var run = try FuzzRun(format: "hang-check")
        await withKnownIssue {
            let finished = await run.run(index: 7, limit: .milliseconds(100)) {
                // The stalled input this test simulates (30 s, far past the 100 ms limit).
                try? await Task.sleep(for: .seconds(30))
                return .accepted
            }
            #expect(!finished)
        }
        #expect(run.hangs == 1)
        try? FileManager.default.removeItem(at: run.inFlight)
    }

    // MARK: The loop

    /// Writes each mutated input as `input-N.<extension>` (the extension taken in turn) and extracts it.
    static func fuzz(
        _ format: String, extensions: [String], _ mutator: Mutator, count: Int = FuzzSettings.inputCount, extractor: DocumentExtractor = extractor
    ) async throws {
        let runSeed = FuzzSettings.seed(for: format)
        try await fuzz(format, count: count, extractor: extractor) { index, folder in
            let file = folder.appendingPathComponent("input-\(index).\(extensions[index % extensions.count])")
            try mutator.input(runSeed: runSeed, index: index).write(to: file)
            return file
        }
    }

    /// Runs `count` inputs that `makeFile` writes into the run's in-flight folder. A file is removed once
    /// read, so after a crash the one left is the input that caused it.
    static func fuzz(
        _ format: String, count: Int = FuzzSettings.inputCount, extractor: DocumentExtractor = extractor,
        makeFile: (_ index: Int, _ folder: URL) throws -> URL
    ) async throws {
        var run = try FuzzRun(format: format)
        for index in 0..<count {
            let file = try makeFile(index, run.inFlight)
            guard await run.run(index: index, { (try? await extractor.extract(file)) == nil ? .rejected : .accepted }) else { break }
            try? FileManager.default.removeItem(at: file)
        }
        run.finish()
    }
}
