import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct PlainTextTests {
    @Test func paragraphsSplitOnBlankLines() async throws {
        try await Scratch.run { scratch in
            let text = "First line\nsecond line\n\n  \t\nNext paragraph\r\n\r\nLast"
            let document = try await DocumentExtractor().extract(try scratch.file("notes.txt", text: text))
            #expect(document.format == .text)
            #expect(document.blocks.map(\.text) == ["First line\nsecond line", "Next paragraph", "Last"])
            #expect(document.blocks.allSatisfy { $0.kind == .paragraph && $0.headingPath.isEmpty })
            #expect(document.warnings.isEmpty)
        }
    }

    @Test(arguments: [true, false]) func utf16WithAByteOrderMark(littleEndian: Bool) async throws {
        try await Scratch.run { scratch in
            let text = "Grüße aus Köln 🎉\n\nZweiter Absatz"
            var data = Data(littleEndian ? [0xFF, 0xFE] : [0xFE, 0xFF])
            for unit in text.utf16 {
                data.append(contentsOf: littleEndian ? [UInt8(unit & 0xFF), UInt8(unit >> 8)] : [UInt8(unit >> 8), UInt8(unit & 0xFF)])
            }
            let document = try await DocumentExtractor().extract(try scratch.file("utf16.txt", data))
            #expect(document.blocks.map(\.text) == ["Grüße aus Köln 🎉", "Zweiter Absatz"])
        }
    }

    @Test func utf8ByteOrderMarkIsDropped() async throws {
        try await Scratch.run { scratch in
            let document = try await DocumentExtractor().extract(try scratch.file("bom.txt", Data([0xEF, 0xBB, 0xBF]) + Data("Hello".utf8)))
            #expect(document.blocks.map(\.text) == ["Hello"])
        }
    }

    @Test func latin1TextIsDecodedWithANote() async throws {
        try await Scratch.run { scratch in
            // "Café – “quoted”" in Windows-1252.
            let bytes: [UInt8] = [0x43, 0x61, 0x66, 0xE9, 0x20, 0x96, 0x20, 0x93, 0x71, 0x75, 0x6F, 0x74, 0x65, 0x64, 0x94]
            let document = try await DocumentExtractor().extract(try scratch.file("latin1.txt", Data(bytes)))
            #expect(document.blocks.map(\.text) == ["Café – “quoted”"])
            #expect(document.warnings.count == 1)
        }
    }

    @Test func mostlyHighBytesAreNotGuessedAsLatin1() {
        let bytes = Data((0..<200).map { UInt8(0xA0 + $0 % 90) })
        #expect(throws: ExtractionError.notValidUTF8) { try TextDecoding.decode(bytes, fileExtension: "txt") }
    }

    @Test func oddUTF16IsNotValid() {
        #expect(throws: ExtractionError.notValidUTF8) { try TextDecoding.decode(Data([0xFF, 0xFE, 0x41]), fileExtension: "txt") }
    }
}
