import Foundation
import SibylCore
import Synchronization

/// OCR with tesseract (run as a program), keeping per-word confidence from its TSV output.
public struct TesseractRecognizer: TextRecognizer {
    let executable: String?

    public init(executable: String? = nil) {
        self.executable = executable ?? (try? CommandRunner.resolve("tesseract"))
    }

    /// Whether tesseract is installed.
    public var isAvailable: Bool { executable != nil }

    public func recognize(_ image: Data, options: RecognitionOptions) async throws -> RecognizedText {
        guard let executable else { throw LocalEngineError.notInstalled(component: "ocr", missing: "tesseract") }
        guard ImageSniffer.mimeType(of: image) != nil || image.starts(with: [0x49, 0x49, 0x2A, 0x00]) || image.starts(with: [0x4D, 0x4D, 0x00, 0x2A]) else {
            throw RecognitionError.notAnImage
        }
        let missing = Self.missingLanguages(options.languages, executable: executable)
        if !missing.isEmpty {
            // Debian names each language's trained data tesseract-ocr-CODE (chi_sim: tesseract-ocr-chi-sim).
            let packages = missing.map { "tesseract-ocr-" + $0.replacingOccurrences(of: "_", with: "-") }
            throw LocalEngineError.notInstalled(component: "ocr", missing: packages.joined(separator: ", "))
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-ocr-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("image")
        try image.write(to: input)
        let base = directory.appendingPathComponent("out")
        var arguments = [input.path, base.path, "-l", options.languages, "--psm", Self.pageSegmentation(for: options.languages)]
        if let dpi = options.dpi { arguments += ["--dpi", String(dpi)] }
        do {
            try await CommandRunner.run(executable, arguments + ["txt", "tsv"], log: directory.appendingPathComponent("tesseract.log"))
        } catch InstallError.commandFailed(_, _, let tail, _) {
            throw RecognitionError.engineFailed(tail)
        }
        let tsv = try String(contentsOf: base.appendingPathExtension("tsv"), encoding: .utf8)
        let plain = try? String(contentsOf: base.appendingPathExtension("txt"), encoding: .utf8)
        return Self.parse(tsv: tsv, plain: plain)
    }

    /// How tesseract finds the text on a page: automatically (columns and all, mode 3), or as one
    /// block of lines (mode 6) when the languages include Korean, Chinese or Japanese, whose gaps
    /// between syllables its layout analysis takes for column breaks: on six Korean test pages,
    /// mode 3 cut lines in two or found nothing on four, mode 4 (one column) on two, mode 6 on none.
    static func pageSegmentation(for languages: String) -> String {
        languages.split(separator: "+").contains { OCRLanguages.eastAsian.contains(String($0)) } ? "6" : "3"
    }

    /// The languages tesseract knows, per executable, as `--list-langs` last said.
    private static let knownLanguages = Mutex<[String: Set<String>]>([:])

    /// Which of `languages` (codes joined with `+`) tesseract has no trained data for. What it
    /// knows is asked once, and again only while something is missing (it may have been installed since).
    static func missingLanguages(_ languages: String, executable: String) -> [String] {
        let wanted = languages.split(separator: "+").map(String.init)
        func missing(in known: Set<String>) -> [String] { wanted.filter { !known.contains($0) } }
        if let known = knownLanguages.withLock({ $0[executable] }), missing(in: known).isEmpty { return [] }
        guard let listed = CommandRunner.capture(executable, ["--list-langs"]), listed.status == 0 else { return [] }
        // The first line names the folder ("List of available languages in …"); each other line is a code.
        let known = Set(String(decoding: listed.output, as: UTF8.self).split(separator: "\n").dropFirst().map { $0.trimmingCharacters(in: .whitespaces) })
        knownLanguages.withLock { $0[executable] = known }
        return missing(in: known)
    }

    /// Rebuilds the text from tesseract's TSV: words joined by spaces, lines by newlines, blocks
    /// and paragraphs by blank lines. In Korean, Chinese or Japanese the TSV has a "word" per
    /// character; `plain` (tesseract's own text of the same page) then tells which of them stand
    /// together, and those become one word with their mean confidence.
    static func parse(tsv: String, plain: String? = nil) -> RecognizedText {
        var lines: [(block: Int, paragraph: Int, words: [RecognizedText.Word])] = []
        var previous: (block: Int, paragraph: Int, line: Int)?
        for row in tsv.split(separator: "\n").dropFirst() {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 12, columns[0] == "5",
                  let block = Int(columns[2]), let paragraph = Int(columns[3]), let line = Int(columns[4]),
                  let confidence = Double(columns[10]) else { continue }
            let word = String(columns[11]).trimmingCharacters(in: .whitespaces)
            guard !word.isEmpty else { continue }
            let recognized = RecognizedText.Word(text: word, confidence: max(0, confidence))
            if let previous, previous == (block, paragraph, line) {
                lines[lines.count - 1].words.append(recognized)
            } else {
                lines.append((block, paragraph, [recognized]))
            }
            previous = (block, paragraph, line)
        }
        var plainLines = (plain ?? "").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }[...]
        var words: [RecognizedText.Word] = []
        var text = ""
        for (index, line) in lines.enumerated() {
            if index > 0 {
                let before = lines[index - 1]
                text += before.block != line.block || before.paragraph != line.paragraph ? "\n\n" : "\n"
            }
            let joined = Self.joined(line.words, as: plainLines.popFirst())
            text += joined.map(\.text).joined(separator: " ")
            words += joined
        }
        let mean = words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count)
        return RecognizedText(text: text, confidence: mean, words: words)
    }

    /// A line's words as `plain` spaces them: words with no space between them in `plain` become
    /// one. Unchanged when `plain` is not the same letters.
    static func joined(_ words: [RecognizedText.Word], as plain: String?) -> [RecognizedText.Word] {
        guard let plain, words.count > 1, plain.filter({ !$0.isWhitespace }) == words.map(\.text).joined() else { return words }
        var merged: [(text: String, confidences: [Double])] = []
        var rest = Substring(plain)
        for word in words {
            let spaced = rest.first?.isWhitespace ?? true
            rest = rest.drop(while: \.isWhitespace).dropFirst(word.text.count)
            if spaced || merged.isEmpty {
                merged.append((word.text, [word.confidence]))
            } else {
                merged[merged.count - 1].text += word.text
                merged[merged.count - 1].confidences.append(word.confidence)
            }
        }
        return merged.map { .init(text: $0.text, confidence: $0.confidences.reduce(0, +) / Double($0.confidences.count)) }
    }
}
