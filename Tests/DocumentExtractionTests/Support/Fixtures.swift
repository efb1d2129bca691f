import DocumentExtraction
import Foundation
import LocalEngines
import SibylCore

/// A scratch directory for one test, removed when the test ends.
struct Scratch {
    let url: URL

    /// Runs `body` with a fresh directory, then removes it.
    @discardableResult
    static func run<T>(_ body: (Scratch) async throws -> T) async throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-extract-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try await body(Scratch(url: url))
    }

    /// Writes `data` to a file called `name` and returns its URL.
    func file(_ name: String, _ data: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try data.write(to: file)
        return file
    }

    func file(_ name: String, text: String) throws -> URL {
        try file(name, Data(text.utf8))
    }
}

/// Whether tesseract is here; OCR tests are skipped without it unless `SIBYL_REQUIRE_ENGINES=1`,
/// which makes its absence a failure.
enum Engines {
    static let required = ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1"
    static let tesseractRuns = TesseractRecognizer().isAvailable || required
    /// Tesseract, when it is installed.
    static var tesseract: (any TextRecognizer)? {
        let tesseract = TesseractRecognizer()
        return tesseract.isAvailable ? tesseract : nil
    }
}

extension DocumentExtractor {
    /// An extractor that reads images and scanned pages with tesseract, as Sibyl's application sets it up.
    static func withOCR(options: Options = Options()) -> DocumentExtractor {
        DocumentExtractor(options: options, recognizer: Engines.tesseract)
    }
}

/// A stand-in OCR engine that reports fixed text, to test what happens around OCR without tesseract.
struct ScriptedRecognizer: TextRecognizer {
    var text: String
    var confidences: [Double]

    func recognize(_ image: Data, options: RecognitionOptions) async throws -> RecognizedText {
        guard ImageSniffer.mimeType(of: image) == "image/png" else { throw RecognitionError.notAnImage }
        let tokens = text.split(whereSeparator: \.isWhitespace)
        let words = tokens.enumerated().map { RecognizedText.Word(text: String($1), confidence: confidences[$0 % confidences.count]) }
        let mean = words.isEmpty ? 0 : words.map(\.confidence).reduce(0, +) / Double(words.count)
        return RecognizedText(text: text, confidence: mean, words: words)
    }
}
