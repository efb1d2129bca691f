import Foundation
import SibylCore
import TestPDFs
import Testing
@testable import LocalEngines

@Suite(.timeLimit(.minutes(10)), .enabled(if: EngineAvailability.runs("ocr"), "tesseract is not installed (sibyl models install ocr)"))
struct TesseractTests {
    /// Renders lines of text to a PNG: a one-page PDF in Helvetica, rasterised by poppler's pdftoppm.
    static func renderPNG(_ lines: [String], dpi: Int = 150) throws -> Data {
        var content = "BT /F1 24 Tf 40 \(60 + 32 * lines.count) Td 32 TL\n"
        for line in lines { content += "(\(line)) Tj T*\n" }
        content += "ET"
        let pdf = try PDFWriter(pages: [.content(content, height: 100 + 32 * lines.count)]).data()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-render-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try pdf.write(to: directory.appendingPathComponent("page.pdf"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/pdftoppm")
        process.arguments = ["-png", "-r", String(dpi), "-singlefile", directory.appendingPathComponent("page.pdf").path, directory.appendingPathComponent("page").path]
        try process.run()
        process.waitUntilExit()
        return try Data(contentsOf: directory.appendingPathComponent("page.png"))
    }

    @Test func readsARenderedPageExactly() async throws {
        let lines = ["Sibyl reads this line 42 times.", "The quick brown fox jumps over the lazy dog."]
        let result = try await TesseractRecognizer().recognize(try Self.renderPNG(lines), options: RecognitionOptions())
        #expect(result.text == lines.joined(separator: "\n"))
        #expect(result.words.count == 15)
        #expect(result.confidence > 80)
    }

    @Test(.enabled(if: ScanImage.canDraw, "ffmpeg or fonts-nanum is missing"))
    func readsKoreanAndIndonesianInTheirOwnLanguages() async throws {
        let korean = ["서울은 대한민국의 수도입니다.", "한강이 도시를 가로질러 흐릅니다."]
        let scan = try ScanImage.png(korean)
        let read = try await TesseractRecognizer().recognize(scan, options: RecognitionOptions(languages: "kor"))
        #expect(read.text == korean.joined(separator: "\n"))
        // Read as English, the same page is not Korean at all.
        let asEnglish = try await TesseractRecognizer().recognize(scan, options: RecognitionOptions(languages: "eng"))
        #expect(!asEnglish.text.contains("서울"))

        let indonesian = ["Jakarta adalah ibu kota Indonesia.", "Kami membaca dokumen ini bersama-sama."]
        let page = try await TesseractRecognizer().recognize(try ScanImage.png(indonesian), options: RecognitionOptions(languages: "eng+ind"))
        #expect(page.text == indonesian.joined(separator: "\n"))
    }

    @Test func aLanguageWithoutTrainedDataNamesItsPackage() async throws {
        await #expect(throws: LocalEngineError.notInstalled(component: "ocr", missing: "tesseract-ocr-zzz, tesseract-ocr-chi-tra")) {
            try await TesseractRecognizer().recognize(try Self.renderPNG(["x"]), options: RecognitionOptions(languages: "eng+zzz+chi_tra"))
        }
    }

    @Test func notAnImageIsAClearError() async throws {
        await #expect(throws: RecognitionError.notAnImage) {
            try await TesseractRecognizer().recognize(Data("plain text".utf8), options: RecognitionOptions())
        }
    }

    @Test func parsesTSVIntoLinesAndParagraphs() {
        let tsv = """
        level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext
        5\t1\t1\t1\t1\t1\t0\t0\t1\t1\t90\tHello
        5\t1\t1\t1\t1\t2\t0\t0\t1\t1\t80\tthere
        5\t1\t1\t1\t2\t1\t0\t0\t1\t1\t70\tsecond
        5\t1\t2\t1\t1\t1\t0\t0\t1\t1\t-1\tnext
        """
        let result = TesseractRecognizer.parse(tsv: tsv)
        #expect(result.text == "Hello there\nsecond\n\nnext")
        #expect(result.confidence == 60)
    }

    @Test func koreanSyllablesAreJoinedIntoWordsAsTesseractsOwnTextSpacesThem() {
        let header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
        let syllables = [("서", 90), ("울", 80), ("은", 70), ("수", 60), ("도", 50)]
        let rows = syllables.enumerated().map { "5\t1\t1\t1\t1\t\($0.offset + 1)\t0\t0\t1\t1\t\($0.element.1)\t\($0.element.0)" }
        let result = TesseractRecognizer.parse(tsv: ([header] + rows).joined(separator: "\n"), plain: "서울은 수도\n\u{0C}")
        #expect(result.text == "서울은 수도")
        #expect(result.words == [.init(text: "서울은", confidence: 80), .init(text: "수도", confidence: 55)])
        // Tesseract's text that does not hold the same letters is not used.
        #expect(TesseractRecognizer.parse(tsv: ([header] + rows).joined(separator: "\n"), plain: "다른 글").text == "서 울 은 수 도")
    }
}
