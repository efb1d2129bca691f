import Foundation
import SibylCore

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
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-ocr-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("image")
        try image.write(to: input)
        let base = directory.appendingPathComponent("out")
        var arguments = [input.path, base.path, "-l", options.languages, "--psm", "3"]
        if let dpi = options.dpi { arguments += ["--dpi", String(dpi)] }
        do {
            try await CommandRunner.run(executable, arguments + ["tsv"], log: directory.appendingPathComponent("tesseract.log"))
        } catch InstallError.commandFailed(_, _, let tail, _) {
            throw RecognitionError.engineFailed(tail)
        }
        let tsv = try String(contentsOf: base.appendingPathExtension("tsv"), encoding: .utf8)
        return Self.parse(tsv: tsv)
    }

    /// Rebuilds the text from tesseract's TSV: words joined by spaces, lines by newlines, blocks and paragraphs by blank lines.
    static func parse(tsv: String) -> RecognizedText {
        var words: [RecognizedText.Word] = []
        var text = ""
        var previous: (block: Int, paragraph: Int, line: Int)?
        for row in tsv.split(separator: "\n").dropFirst() {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false)
            guard columns.count >= 12, columns[0] == "5",
                  let block = Int(columns[2]), let paragraph = Int(columns[3]), let line = Int(columns[4]),
                  let confidence = Double(columns[10]) else { continue }
            let word = String(columns[11]).trimmingCharacters(in: .whitespaces)
            guard !word.isEmpty else { continue }
            if let previous {
                if previous.block != block || previous.paragraph != paragraph {
                    text += "\n\n"
                } else if previous.line != line {
                    text += "\n"
                } else {
                    text += " "
                }
            }
            text += word
            previous = (block, paragraph, line)
            words.append(.init(text: word, confidence: max(0, confidence)))
        }
        let mean = words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count)
        return RecognizedText(text: text, confidence: mean, words: words)
    }
}
