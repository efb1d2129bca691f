import Foundation
import SibylCore

/// Reads a PDF page by page: the text layer where there is one, OCR of the rendered page where not.
struct PDFReader {
    var options: DocumentExtractor.Options
    var recognizer: (any TextRecognizer)?

    /// Pages whose text layer has fewer visible characters than this, and a large image, are OCR'd too.
    static let scantyTextLength = 16

    func read(path: String, progress: DocumentExtractor.PageProgress? = nil) async throws -> ExtractedDocument {
        let file = try PDFFile(path: path)
        let pageCount = file.pageCount
        guard pageCount <= options.maxPDFPages else { throw ExtractionError.tooManyPages(count: pageCount, limit: options.maxPDFPages) }
        let started = ContinuousClock.now
        var collector = BlockCollector()
        var warnings: [String] = []
        var ocrSkipped: [Int] = []
        for index in 0..<pageCount {
            try Task.checkCancellation()
            if ContinuousClock.now - started > options.timeLimit { throw ExtractionError.tookTooLong(limit: options.timeLimit, pagesRead: index, pageCount: pageCount) }
            let number = index + 1
            defer { progress?(number, pageCount) }
            let (text, scan) = try file.withPage(index) { page -> (String, Scan) in
                let text = page.text
                let visible = text.unicodeScalars.lazy.filter { !$0.properties.isWhitespace }.prefix(Self.scantyTextLength).count
                guard visible < Self.scantyTextLength, visible == 0 || page.largestImageCoverage >= 0.5 else { return (text, .notNeeded) }
                // A page without a (real) text layer: render it for OCR, if OCR may run.
                guard options.ocr, recognizer != nil else { return (text, .unavailable) }
                return (text, .rendered(try page.renderPNG(dpi: options.ocrResolution)))
            }
            switch scan {
            case .notNeeded:
                break
            case .unavailable:
                ocrSkipped.append(number)
            case .rendered(let png):
                if let ocr = try await recognize(png, page: number, warnings: &warnings),
                   Self.visibleCount(ocr.text) > Self.visibleCount(text) {
                    OCRBlocks.add(ocr, page: number, to: &collector)
                    continue
                }
            }
            for paragraph in LineParagraphs.split(text, dropPageNumbers: true) {
                collector.add(paragraph.kind, paragraph.text, page: number)
            }
        }
        if !ocrSkipped.isEmpty {
            let reason = options.ocr ? "tesseract is not installed" : "OCR is turned off"
            warnings.append("\(Self.pageList(ocrSkipped)) \(ocrSkipped.count == 1 ? "has" : "have") no text layer and \(ocrSkipped.count == 1 ? "was" : "were") not OCR'd (\(reason)).")
        }
        return ExtractedDocument(format: .pdf, title: file.title, blocks: collector.blocks, pageCount: pageCount, warnings: warnings)
    }

    /// Whether a page is OCR'd.
    private enum Scan {
        case notNeeded
        /// The page needs OCR, which is off or missing.
        case unavailable
        /// The page rendered as PNG, for OCR.
        case rendered(Data)
    }

    static func visibleCount(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { $0 + ($1.properties.isWhitespace ? 0 : 1) }
    }

    /// OCR of one rendered page; a failure becomes a warning, as the other pages can still be read.
    private func recognize(_ png: Data, page: Int, warnings: inout [String]) async throws -> RecognizedText? {
        guard let recognizer else { return nil }
        do {
            let result = try await recognizer.recognize(png, options: RecognitionOptions(languages: options.ocrLanguages, dpi: options.ocrResolution))
            if result.text.isEmpty { warnings.append("Page \(page) has no text layer and OCR found no text on it.") }
            return result
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            try Task.checkCancellation()
            warnings.append("Page \(page) could not be OCR'd: \(error.localizedDescription)")
            return nil
        }
    }

    /// "Page 3" or "Pages 2, 5, 9" (the first ten, then a count).
    static func pageList(_ pages: [Int]) -> String {
        guard pages.count > 1 else { return "Page \(pages.first ?? 0)" }
        let shown = pages.prefix(10).map(String.init).joined(separator: ", ")
        return "Pages \(shown)\(pages.count > 10 ? " and \(pages.count - 10) more" : "")"
    }
}
