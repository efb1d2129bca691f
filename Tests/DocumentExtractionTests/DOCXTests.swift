import Foundation
import SibylCore
import Testing
import ZIPFoundation
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct DOCXTests {
    static let body = [
        DOCXBuilder.paragraph("Annual Report", style: "Title"),
        DOCXBuilder.paragraph("Overview", style: "berschrift1"),
        DOCXBuilder.paragraph("Sales grew & costs fell."),
        DOCXBuilder.paragraph("Regions", style: "Heading2"),
        DOCXBuilder.paragraph("North\tup 5%", numbered: true),
        DOCXBuilder.paragraph("South", style: "ListBullet"),
        DOCXBuilder.table([["Region", "Sales"], ["North", "120"], ["", ""]]),
        DOCXBuilder.paragraph("Custom heading", style: "MySection"),
        "<w:p><w:r><w:t>Kept </w:t></w:r><w:del><w:r><w:delText>deleted </w:delText></w:r></w:del><w:r><w:t>text</w:t><w:br/><w:t>next line</w:t></w:r></w:p>",
        "<w:p><w:pPr><w:outlineLvl w:val=\"2\"/></w:pPr><w:r><w:t>Outline level three</w:t></w:r></w:p>",
    ].joined()

    @Test func readsHeadingsListsTablesAndTheCoreTitle() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("report.docx")
            try DOCXBuilder.write(body: Self.body, title: "Report 2024", to: file)
            let document = try await DocumentExtractor().extract(file)
            #expect(document.format == .docx)
            #expect(document.title == "Report 2024")
            let summary = document.blocks.map { "\($0.kind)|\($0.headingPath.joined(separator: ">"))|\($0.text)" }
            #expect(summary == [
                "heading(level: 1)||Annual Report",
                "heading(level: 1)||Overview",
                "paragraph|Overview|Sales grew & costs fell.",
                "heading(level: 2)|Overview|Regions",
                "listItem|Overview>Regions|North\tup 5%",
                "listItem|Overview>Regions|South",
                "table|Overview>Regions|Region | Sales",
                "table|Overview>Regions|North | 120",
                "heading(level: 2)|Overview|Custom heading",
                "paragraph|Overview>Custom heading|Kept text\nnext line",
                "heading(level: 3)|Overview>Custom heading|Outline level three",
            ])
        }
    }

    @Test func titleFallsBackToTheTitleParagraph() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("untitled.docx")
            try DOCXBuilder.write(body: Self.body, title: nil, to: file)
            #expect(try await DocumentExtractor().extract(file).title == "Annual Report")
        }
    }

    /// A document.xml of `size` bytes of repeated paragraphs, made chunk by chunk.
    static func writeRepetitiveDocument(size: Int, to file: URL) throws {
        let unit = Data("<w:p><w:r><w:t>All work and no play makes Jack a dull boy.</w:t></w:r></w:p>".utf8)
        let chunk = Array(repeating: unit, count: 2 + 65536 / unit.count).reduce(Data(), +)
        let archive = try Archive(url: file, accessMode: .create)
        try archive.addEntry(with: "[Content_Types].xml", type: .file, uncompressedSize: Int64(DOCXBuilder.contentTypes.utf8.count), compressionMethod: .deflate) { position, length in
            Data(DOCXBuilder.contentTypes.utf8).subdata(in: Int(position)..<(Int(position) + length))
        }
        try archive.addEntry(with: "word/document.xml", type: .file, uncompressedSize: Int64(size), compressionMethod: .deflate, bufferSize: 65536) { position, length in
            let start = Int(position) % unit.count
            return chunk.subdata(in: start..<(start + length))
        }
    }

    @Test func aZipBombIsRejectedBeforeInflating() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("bomb.docx")
            try Self.writeRepetitiveDocument(size: 250_000_000, to: file)
            let fileSize = try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0
            #expect(fileSize < 2_000_000)
            let peakBefore = Self.peakMemory()
            await #expect(throws: ExtractionError.docxTooLarge("word/document.xml would expand to 250.0 MB, over the 200.0 MB limit")) {
                try await DocumentExtractor().extract(file)
            }
            // Nothing was inflated: the peak memory stayed far below the 250 MB it would take.
            #expect(Self.peakMemory() - peakBefore < 50_000_000)
        }
    }

    @Test func aHighCompressionRatioIsRejected() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("dense.docx")
            try Self.writeRepetitiveDocument(size: 20_000_000, to: file)
            await #expect {
                try await DocumentExtractor().extract(file)
            } throws: { error in
                guard case .docxTooLarge(let detail) = error as? ExtractionError else { return false }
                return detail.contains(":1, more than the 200:1 allowed")
            }
        }
    }

    @Test func aPartLargerThanItsHeaderSaysIsStoppedWhileInflating() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("liar.docx")
            var paragraphs = ""
            var seed: UInt32 = 7
            for index in 0..<3000 {
                seed = seed &* 1_103_515_245 &+ 12345
                paragraphs += DOCXBuilder.paragraph("Paragraph \(index) holds the number \(seed) and a few words.")
            }
            try DOCXBuilder.write(body: paragraphs, title: nil, to: file)
            // Rewrite document.xml's declared size (local header and central directory) to 1000 bytes.
            var bytes = [UInt8](try Data(contentsOf: file))
            let name = Array("word/document.xml".utf8)
            for (signature, sizeOffset, nameOffset) in [([0x50, 0x4B, 0x03, 0x04] as [UInt8], 22, 30), ([0x50, 0x4B, 0x01, 0x02], 24, 46)] {
                for start in 0..<(bytes.count - nameOffset - name.count) where bytes[start..<(start + 4)].elementsEqual(signature)
                    && bytes[(start + nameOffset)..<(start + nameOffset + name.count)].elementsEqual(name) {
                    bytes.replaceSubrange((start + sizeOffset)..<(start + sizeOffset + 4), with: [0xE8, 0x03, 0, 0])
                }
            }
            try Data(bytes).write(to: file)
            await #expect(throws: ExtractionError.docxTooLarge("word/document.xml expands beyond the 1.0 kB its header declares")) {
                try await DocumentExtractor().extract(file)
            }
        }
    }

    @Test func aZipThatIsNotAWordDocument() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("other.docx")
            try DOCXBuilder.write([("readme.txt", Data("hello".utf8))], to: file)
            await #expect(throws: ExtractionError.corruptDOCX("it has no word/document.xml; is it a Word document?")) {
                try await DocumentExtractor().extract(file)
            }
        }
    }

    @Test func malformedXMLIsCorrupt() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("broken.docx")
            try DOCXBuilder.write([("word/document.xml", Data("<w:document><w:body><w:p>".utf8))], to: file)
            await #expect {
                try await DocumentExtractor().extract(file)
            } throws: { error in
                guard case .corruptDOCX(let detail) = error as? ExtractionError else { return false }
                return detail.hasPrefix("word/document.xml is not well-formed XML")
            }
        }
    }

    @Test func notAZipIsCorrupt() async throws {
        try await Scratch.run { scratch in
            let file = try scratch.file("fake.docx", text: "just text")
            await #expect(throws: ExtractionError.corruptDOCX("it is not a zip archive")) { try await DocumentExtractor().extract(file) }
        }
    }

    /// The process's peak resident memory, in bytes.
    static func peakMemory() -> Int {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024
        #else
        getrusage(RUSAGE_SELF, &usage)
        return usage.ru_maxrss
        #endif
    }
}
