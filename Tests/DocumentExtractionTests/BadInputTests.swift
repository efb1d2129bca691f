import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct BadInputTests {
    @Test(arguments: ["notes.txt", "page.html", "readme.md"])
    func binaryDataNamedAsTextIsRejected(name: String) async throws {
        try await Scratch.run { scratch in
            let binary = Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00] + (0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
            let fileExtension = String(name.split(separator: ".").last!)
            await #expect(throws: ExtractionError.binaryContent(fileExtension: fileExtension)) {
                try await DocumentExtractor().extract(try scratch.file(name, binary))
            }
        }
    }

    @Test func controlCharactersWithoutASignatureAreBinary() {
        var bytes: [UInt8] = []
        for index in 0..<1000 {
            bytes.append(index.isMultiple(of: 2) ? 0x41 : UInt8(1 + index % 7))
        }
        let data = Data(bytes)
        #expect(throws: ExtractionError.binaryContent(fileExtension: "txt")) { try TextDecoding.decode(data, fileExtension: "txt") }
    }

    @Test(arguments: ["empty.txt", "empty.pdf", "empty.docx", "empty.png", "empty.md"])
    func anEmptyFileIsAnError(name: String) async throws {
        try await Scratch.run { scratch in
            await #expect(throws: ExtractionError.emptyFile) { try await DocumentExtractor().extract(try scratch.file(name, Data())) }
        }
    }

    @Test func whitespaceOnlyTextIsEmpty() async throws {
        try await Scratch.run { scratch in
            await #expect(throws: ExtractionError.emptyFile) { try await DocumentExtractor().extract(try scratch.file("blank.txt", text: " \n\t\n")) }
        }
    }

    @Test func aFileOverTheSizeLimitIsRefusedUnread() async throws {
        try await Scratch.run { scratch in
            let file = try scratch.file("big.txt", Data(repeating: 0x61, count: 2048))
            let extractor = DocumentExtractor(options: .init(maxFileSize: 1024))
            await #expect(throws: ExtractionError.tooLarge(bytes: 2048, limit: 1024)) { try await extractor.extract(file) }
            #expect(ExtractionError.tooLarge(bytes: 150_000_000, limit: 100_000_000).localizedDescription
                == "The file is 150.0 MB, over the 100.0 MB limit; split it or raise the size limit.")
        }
    }

    @Test func unsupportedAndMissingFiles() async throws {
        try await Scratch.run { scratch in
            await #expect(throws: ExtractionError.unsupportedExtension("xlsx")) {
                try await DocumentExtractor().extract(try scratch.file("sheet.xlsx", text: "x"))
            }
            await #expect(throws: ExtractionError.unsupportedExtension("")) {
                try await DocumentExtractor().extract(try scratch.file("README", text: "x"))
            }
            await #expect(throws: ExtractionError.unreadableFile("no such file")) {
                try await DocumentExtractor().extract(scratch.url.appendingPathComponent("missing.txt"))
            }
        }
    }

    @Test func oneBadFileDoesNotStopTheOthers() async throws {
        try await Scratch.run { scratch in
            let files = [
                try scratch.file("a.txt", text: "First file."),
                try scratch.file("b.txt", Data([0x00, 0x01, 0x02])),
                try scratch.file("c.md", text: "# Third"),
            ]
            var results: [String] = []
            for file in files {
                do {
                    results.append(try await DocumentExtractor().extract(file).blocks.map(\.text).joined())
                } catch {
                    results.append("error: \(error.localizedDescription)")
                }
            }
            #expect(results == ["First file.", "error: The file is named .txt but holds binary data, not text; check that it is the file you meant.", "Third"])
        }
    }

    @Test func cancellationStopsExtraction() async throws {
        try await Scratch.run { scratch in
            let file = try scratch.file("long.md", text: String(repeating: "Paragraph text.\n\n", count: 50_000))
            let task = Task { try await DocumentExtractor().extract(file) }
            task.cancel()
            await #expect(throws: CancellationError.self) { try await task.value }
        }
    }

    @Test func everyErrorSaysWhatToDo() {
        let errors: [ExtractionError] = [
            .emptyFile, .tooLarge(bytes: 5, limit: 1), .binaryContent(fileExtension: "txt"), .notValidUTF8, .corruptPDF("x"),
            .encryptedPDF, .corruptDOCX("x"), .docxTooLarge("x"), .unreadableImage("x"), .ocrUnavailable("x"),
            .unsupportedExtension("xyz"), .unreadableFile("x"),
        ]
        for error in errors {
            #expect(!(error.errorDescription ?? "").isEmpty)
        }
        #expect(ExtractionError.encryptedPDF.localizedDescription.contains("password"))
    }
}
