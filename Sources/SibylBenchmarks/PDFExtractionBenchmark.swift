import ArgumentParser
import DocumentExtraction
import Foundation
import SibylCore
import TestPDFs

/// `sibyl-bench pdf`: PDF text extraction speed of `DocumentExtractor` against poppler's `pdftotext`.
struct PDFExtractionBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pdf",
        abstract: "PDF text extraction throughput (pages/s) of Sibyl versus pdftotext on the same files.",
        discussion: """
            Extracts every PDF with Sibyl (poppler-glib in process, paragraphs rebuilt) and then with \
            `pdftotext` (one process per file, output to a file), one file after another on one thread, \
            and reports the best of --runs for each. Without --directory it first writes a set of text \
            PDFs of generated prose (--files × --pages-per-file pages). Needs poppler-utils.
            """
    )

    @Option(help: "A directory of PDFs to measure (searched recursively) instead of generated ones.")
    var directory: String?

    @Option(help: "Generated PDFs.")
    var files = 12

    @Option(help: "Pages in each generated PDF.")
    var pagesPerFile = 50

    @Option(help: "Timed runs of each tool after a warm-up; the best is reported.")
    var runs = 3

    @Option(help: "The pdftotext executable.")
    var pdftotext = "/usr/bin/pdftotext"

    @Flag(help: "Measure Sibyl only.")
    var skipReference = false

    @Flag(help: "Also print the results as one JSON object.")
    var json = false

    func validate() throws {
        guard files >= 1, pagesPerFile >= 1, runs >= 1 else {
            throw ValidationError("--files, --pages-per-file and --runs must be at least 1")
        }
    }

    func run() async throws {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pdf-bench-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }

        var inputs: [URL]
        if let directory {
            inputs = Self.pdfs(under: URL(fileURLWithPath: directory, isDirectory: true))
        } else {
            print("Writing \(files) PDFs of \(pagesPerFile) pages of generated prose …")
            inputs = try (0..<files).map { index in
                let file = scratch.appendingPathComponent("sample-\(index + 1).pdf")
                try SamplePDF.make(pages: pagesPerFile, seed: UInt64(index + 1)).write(to: file)
                return file
            }
        }

        // Warm-up, which also counts pages and drops what Sibyl cannot read (encrypted, damaged …).
        let extractor = DocumentExtractor(options: .init(ocr: false))
        var pages = 0
        var sibylCharacters = 0
        var readable: [URL] = []
        for file in inputs {
            do {
                let document = try await extractor.extract(file)
                pages += document.pageCount ?? 0
                sibylCharacters += document.blocks.reduce(0) { $0 + Self.visibleCharacters($1.text) }
                readable.append(file)
            } catch {
                print("skipping \(file.lastPathComponent): \(error.localizedDescription)")
            }
        }
        guard !readable.isEmpty, pages > 0 else { throw ValidationError("no readable PDFs to measure") }
        print("\(readable.count) PDFs, \(pages) pages · 1 thread · best of \(runs) runs")

        let clock = ContinuousClock()
        var sibylTimes: [Double] = []
        for _ in 0..<runs {
            let start = clock.now
            for file in readable { _ = try await extractor.extract(file) }
            sibylTimes.append(Statistics.seconds(clock.now - start))
        }
        let sibyl = sibylTimes.min()!

        var reference: Double?
        var referenceCharacters = 0
        if !skipReference {
            let output = scratch.appendingPathComponent("pdftotext.txt")
            do {
                for file in readable { try Self.runPdftotext(pdftotext, file, output) }
                var times: [Double] = []
                for _ in 0..<runs {
                    let start = clock.now
                    for file in readable { try Self.runPdftotext(pdftotext, file, output) }
                    times.append(Statistics.seconds(clock.now - start))
                }
                reference = times.min()
                for file in readable {
                    try Self.runPdftotext(pdftotext, file, output)
                    referenceCharacters += Self.visibleCharacters(try String(contentsOf: output, encoding: .utf8))
                }
            } catch {
                print("warning: no reference figures: \(error)")
            }
        }
        report(pages: pages, sibyl: sibyl, reference: reference, sibylCharacters: sibylCharacters, referenceCharacters: referenceCharacters)
    }

    private func report(pages: Int, sibyl: Double, reference: Double?, sibylCharacters: Int, referenceCharacters: Int) {
        let sibylRate = Double(pages) / sibyl
        print("")
        print(String(format: "Sibyl (poppler-glib, paragraphs)   %8.3f s   %8.1f pages/s   %d visible characters", sibyl, sibylRate, sibylCharacters))
        guard let reference else { return }
        let referenceRate = Double(pages) / reference
        print(String(format: "pdftotext                          %8.3f s   %8.1f pages/s   %d visible characters", reference, referenceRate, referenceCharacters))
        print(String(format: "ratio: %.2f× pdftotext's pages/s (goal ≥ 0.80×)", sibylRate / referenceRate))
        if json {
            let figures: [String: Any] = [
                "pages": pages, "threads": 1, "runs": runs,
                "sibyl_seconds": sibyl, "sibyl_pages_per_second": sibylRate,
                "pdftotext_seconds": reference, "pdftotext_pages_per_second": referenceRate,
                "ratio": sibylRate / referenceRate,
                "sibyl_visible_characters": sibylCharacters, "pdftotext_visible_characters": referenceCharacters,
            ]
            if let data = try? JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys]) {
                print(String(decoding: data, as: UTF8.self))
            }
        }
    }

    static func pdfs(under directory: URL) -> [URL] {
        let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)
        var found: [URL] = []
        while let url = enumerator?.nextObject() as? URL {
            if url.pathExtension.lowercased() == "pdf" { found.append(url) }
        }
        return found.sorted { $0.path < $1.path }
    }

    static func visibleCharacters(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1.properties.isWhitespace ? 0 : 1) }
    }

    struct ToolFailure: Error, CustomStringConvertible {
        var description: String
    }

    static func runPdftotext(_ executable: String, _ file: URL, _ output: URL) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-q", "-enc", "UTF-8", file.path, output.path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ToolFailure(description: "pdftotext exited with status \(process.terminationStatus) on \(file.lastPathComponent)")
        }
    }

    /// Text PDFs of generated prose: a heading and paragraphs of justified-width lines per page, in Helvetica.
    enum SamplePDF {
        static let words = """
            the of and to in is that for it as with was on be by this are from at or an which have not \
            document library page text search answer question source model index chunk token embedding \
            retrieval citation paragraph section chapter figure table result method system value data \
            reader writer format extraction layout column number between within without however because \
            therefore although several important different particular general measured expected quickly
            """.split(separator: " ").map(String.init)

        static func make(pages: Int, seed: UInt64) throws -> Data {
            var state = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            func next(_ bound: Int) -> Int {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return Int((state >> 33) % UInt64(bound))
            }
            var contents: [PDFWriter.Page] = []
            for page in 0..<pages {
                var content = "BT /F1 16 Tf 56 740 Td 20 TL (Section \(page + 1): \(words[next(words.count)]) \(words[next(words.count)])) Tj T* T*\n/F1 10 Tf 13 TL\n"
                var lines = 0
                while lines < 48 {
                    // A paragraph of 3–8 full lines and a shorter last one.
                    let count = 3 + next(6)
                    for index in 0...count where lines < 48 {
                        var line = ""
                        let target = index == count ? 30 + next(40) : 92
                        while line.count < target { line += (line.isEmpty ? "" : " ") + words[next(words.count)] }
                        if index == count { line += "." }
                        content += "(\(line)) Tj T*\n"
                        lines += 1
                    }
                    content += "T*\n"
                    lines += 1
                }
                content += "ET"
                contents.append(.content(content, height: 792))
            }
            return try PDFWriter(pages: contents).data()
        }
    }
}
