import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct ImageTests {
    @Test(.enabled(if: Engines.tesseractRuns, "tesseract is not installed (sibyl models install ocr)"))
    func ocrReadsAnImageAndKeepsItsConfidence() async throws {
        let png = try await PDFTests.scannedPage(PDFTests.scanLines)
        try await Scratch.run { scratch in
            let document = try await DocumentExtractor.withOCR().extract(try scratch.file("scan.png", png))
            #expect(document.format == .image)
            #expect(document.blocks.map(\.text).joined(separator: " ") == PDFTests.scanLines.joined(separator: " "))
            #expect((document.ocrConfidence ?? 0) > 80)
            #expect(document.blocks.allSatisfy { $0.page == nil && $0.ocrConfidence != nil })
        }
    }

    @Test func anImageThatIsNotAnImageIsAnError() async throws {
        try await Scratch.run { scratch in
            let extractor = DocumentExtractor(recognizer: ScriptedRecognizer(text: "x", confidences: [1]))
            await #expect(throws: ExtractionError.unreadableImage("it is not a PNG, JPEG, TIFF, GIF or WebP image")) {
                try await extractor.extract(try scratch.file("photo.jpg", text: "not really a photo"))
            }
        }
    }

    @Test func imagesNeedOCR() async throws {
        try await Scratch.run { scratch in
            let png = try await PDFTests.scannedPage(["Hello"])
            let extractor = DocumentExtractor(options: .init(ocr: false))
            await #expect(throws: ExtractionError.ocrUnavailable("OCR is turned off")) {
                try await extractor.extract(try scratch.file("scan.tif", png))
            }
        }
    }
}
