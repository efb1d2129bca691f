import CPoppler
import Foundation
import LocalEngines
import SibylCore
import Synchronization
import TestPDFs
import Testing
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct PDFTests {
    static let scanLines = ["Scanned pages are read by OCR.", "The quick brown fox jumps over the lazy dog."]

    /// A page image as a scanner would make it: a text page rendered to PNG by poppler and cairo.
    static func scannedPage(_ lines: [String]) async throws -> Data {
        try await Scratch.run { scratch in
            let source = try scratch.file("source.pdf", try PDFWriter(pages: [.text(lines)]).data())
            return try PDFFile(path: source.path).withPage(0) { try $0.renderPNG(dpi: 150) }
        }
    }

    /// A PDF over the page limit is refused before any page is read; one that takes longer than the
    /// time limit stops between pages with what it had read, and nothing is returned.
    @Test func pageCountAndReadingTimeAreLimited() async throws {
        try await Scratch.run { scratch in
            let file = try scratch.file("three.pdf", try PDFWriter(pages: [.text(["One."]), .text(["Two."]), .text(["Three."])]).data())
            let pages = await #expect(throws: ExtractionError.self) {
                try await DocumentExtractor(options: .init(ocr: false, maxPDFPages: 2)).extract(file)
            }
            #expect(pages == .tooManyPages(count: 3, limit: 2))
            #expect(pages?.errorDescription?.contains("docs.max_pdf_pages") == true)
            let slow = await #expect(throws: ExtractionError.self) {
                try await DocumentExtractor(options: .init(ocr: false, timeLimit: .zero)).extract(file)
            }
            guard case .tookTooLong(_, let read, let count)? = slow else {
                Issue.record("expected the time limit, got \(String(describing: slow))")
                return
            }
            #expect(read >= 0 && read < count && count == 3)
            #expect(try await DocumentExtractor(options: .init(ocr: false, maxPDFPages: 3)).extract(file).pageCount == 3)
        }
    }

    @Test func threePagesKeepTheirPageNumbers() async throws {
        try await Scratch.run { scratch in
            let pdf = PDFWriter(pages: [
                .text(["Alpha is on the first page."]),
                .text(["Beta is on the second page."]),
                .text(["Gamma is on the third page (really)."]),
            ], title: "Three Pages")
            let reports = Mutex<[String]>([])
            let document = try await DocumentExtractor().extract(try scratch.file("three.pdf", try pdf.data())) { done, count in
                reports.withLock { $0.append("\(done)/\(count)") }
            }
            #expect(reports.withLock { $0 } == ["1/3", "2/3", "3/3"])
            #expect(document.format == .pdf)
            #expect(document.pageCount == 3)
            #expect(document.title == "Three Pages")
            #expect(document.blocks.map(\.page) == [1, 2, 3])
            #expect(document.blocks.map(\.text) == ["Alpha is on the first page.", "Beta is on the second page.", "Gamma is on the third page (really)."])
            #expect(document.blocks.allSatisfy { $0.ocrConfidence == nil })
            #expect(document.warnings.isEmpty)
        }
    }

    @Test func aPageWithoutTextIsOCRdWithEachParagraphsConfidence() async throws {
        let scan = try await Self.scannedPage(Self.scanLines)
        try await Scratch.run { scratch in
            let pdf = PDFWriter(pages: [.text(["A page with a text layer."]), .image(png: scan)])
            let recognizer = ScriptedRecognizer(text: "Scanned heading\n\nThe body text here.", confidences: [90, 90, 60, 60, 60, 60])
            let document = try await DocumentExtractor(recognizer: recognizer).extract(try scratch.file("scan.pdf", try pdf.data()))
            #expect(document.pageCount == 2)
            #expect(document.blocks.map(\.text) == ["A page with a text layer.", "Scanned heading", "The body text here."])
            #expect(document.blocks.map(\.page) == [1, 2, 2])
            #expect(document.blocks.map(\.ocrConfidence) == [nil, 90, 60])
            #expect(document.ocrConfidence == 75)
        }
    }

    @Test(.enabled(if: Engines.tesseractRuns, "tesseract is not installed (sibyl models install ocr)"))
    func tesseractReadsAScannedPage() async throws {
        let scan = try await Self.scannedPage(Self.scanLines)
        try await Scratch.run { scratch in
            let pdf = PDFWriter(pages: [.text(["Typed first page."]), .image(png: scan), .text(["Typed last page."])])
            let document = try await DocumentExtractor.withOCR().extract(try scratch.file("scan.pdf", try pdf.data()))
            let scanned = document.blocks.filter { $0.page == 2 }
            #expect(scanned.map(\.text).joined(separator: " ") == Self.scanLines.joined(separator: " "))
            #expect(scanned.allSatisfy { ($0.ocrConfidence ?? 0) > 80 })
            #expect(document.blocks.filter { $0.page != 2 }.allSatisfy { $0.ocrConfidence == nil })
            #expect(document.warnings.isEmpty)
        }
    }

    @Test func withOCROffAScannedPageIsAWarning() async throws {
        let scan = try await Self.scannedPage(Self.scanLines)
        try await Scratch.run { scratch in
            let pdf = PDFWriter(pages: [.text(["Only this page has text."]), .image(png: scan), .blank])
            let extractor = DocumentExtractor(options: .init(ocr: false), recognizer: ScriptedRecognizer(text: "unused", confidences: [50]))
            let document = try await extractor.extract(try scratch.file("scan.pdf", try pdf.data()))
            #expect(document.blocks.map(\.text) == ["Only this page has text."])
            #expect(document.warnings == ["Pages 2, 3 have no text layer and were not OCR'd (OCR is turned off)."])
        }
    }

    @Test func anEncryptedPDFNeedsAPassword() async throws {
        try await Scratch.run { scratch in
            let pdf = PDFWriter(pages: [.text(["Secret text."])], title: "Secret", userPassword: "sesame")
            let file = try scratch.file("locked.pdf", try pdf.data())
            await #expect(throws: ExtractionError.encryptedPDF) { try await DocumentExtractor().extract(file) }
            // The fixture is a real encrypted PDF: poppler reads it given the password.
            var error: UnsafeMutablePointer<GError>?
            let opened = poppler_document_new_from_file(file.absoluteString, "sesame", &error)
            #expect(opened != nil)
            if let opened {
                let page = poppler_document_get_page(opened, 0)
                let text = page.flatMap { poppler_page_get_text($0) }
                #expect(text.map { String(cString: $0) } == "Secret text.")
                g_free(text)
                if let page { g_object_unref(UnsafeMutableRawPointer(page)) }
                g_object_unref(UnsafeMutableRawPointer(opened))
            }
            if let error { g_error_free(error) }
        }
    }

    @Test func aDamagedPDFIsAClearError() async throws {
        try await Scratch.run { scratch in
            let file = try scratch.file("damaged.pdf", text: "%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\ngarbage without end\n")
            await #expect {
                try await DocumentExtractor().extract(file)
            } throws: { error in
                guard case .corruptPDF = error as? ExtractionError else { return false }
                return true
            }
        }
    }

    @Test func aFileThatIsNotAPDFIsAClearError() async throws {
        try await Scratch.run { scratch in
            let file = try scratch.file("letter.pdf", text: "Dear reader, this is a plain text file.")
            await #expect(throws: ExtractionError.corruptPDF("it has no PDF header")) { try await DocumentExtractor().extract(file) }
        }
    }
}
