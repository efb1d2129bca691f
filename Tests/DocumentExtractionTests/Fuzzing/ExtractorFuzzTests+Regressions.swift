import Foundation
import SibylCore
import TestPDFs
import Testing
@testable import DocumentExtraction

/// Crashes the fuzzer found, each kept as the smallest input that caused it.
extension ExtractorFuzzTests {
    /// docx run, input 51: a mutation left a lone 0xC4 after `<` in document.xml. libxml2 passed the
    /// byte on as an element name and FoundationXML trapped force-unwrapping it as UTF-8.
    static let nonUTF8ElementName = Data([0x3C, 0xC4, 0x3C, 0x2F, 0x77]) // "<\xC4</w"

    @Test func aNonUTF8ElementNameInTheDocumentPartIsAnErrorNotACrash() async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("name.docx")
            try DOCXBuilder.write([("word/document.xml", Self.nonUTF8ElementName)], to: file)
            await #expect(throws: ExtractionError.corruptDOCX("word/document.xml is not UTF-8 or UTF-16 text")) {
                try await DocumentExtractor().extract(file)
            }
        }
    }

    /// The same bytes in the optional parts cost only what those parts give (styles, title, part
    /// names), as other damage to them does.
    @Test(arguments: ["word/styles.xml", "docProps/core.xml", "_rels/.rels", "word/_rels/document.xml.rels"])
    func aNonUTF8ElementNameInAnOptionalPartIsIgnored(part: String) async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("optional.docx")
            let document = Data(DOCXBuilder.documentXML(body: DOCXBuilder.paragraph("Still read")).utf8)
            try DOCXBuilder.write([("word/document.xml", document), (part, Self.nonUTF8ElementName)], to: file)
            #expect(try await DocumentExtractor().extract(file).blocks.map(\.text) == ["Still read"])
        }
    }

    /// Parts in UTF-16, which the conventions allow, are read through the check: with a byte-order
    /// mark and a declaration saying UTF-16, and without either (which libxml2 alone did not read).
    @Test(arguments: [true, false])
    func aUTF16DocumentPartIsRead(withByteOrderMark: Bool) async throws {
        try await Scratch.run { scratch in
            var xml = DOCXBuilder.documentXML(body: DOCXBuilder.paragraph("Grüße in UTF-16"))
            if withByteOrderMark {
                xml = xml.replacingOccurrences(of: "encoding=\"UTF-8\"", with: "encoding=\"UTF-16\"")
            } else {
                xml = String(xml[xml.range(of: "?>")!.upperBound...]).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            var data = Data(withByteOrderMark ? [0xFF, 0xFE] : [])
            for unit in xml.utf16 { data.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
            let file = scratch.url.appendingPathComponent("utf16.docx")
            try DOCXBuilder.write([("word/document.xml", data)], to: file)
            #expect(try await DocumentExtractor().extract(file).blocks.map(\.text) == ["Grüße in UTF-16"])
        }
    }
}

/// Traps in FoundationXML found while minimizing the crash above, by fuzzing `XMLParser` alone with
/// valid UTF-8: each is legal or nearly legal XML that a damaged or hostile part can hold.
extension ExtractorFuzzTests {
    /// A processing instruction without data: libxml2 reports it with a null pointer.
    @Test(arguments: ["<?m?>", "<?mso-application?>"])
    func aProcessingInstructionWithoutDataIsReadNotACrash(instruction: String) async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("instruction.docx")
            let xml = DOCXBuilder.documentXML(body: instruction + DOCXBuilder.paragraph("After the instruction"))
            try DOCXBuilder.write([("word/document.xml", Data(xml.utf8))], to: file)
            #expect(try await DocumentExtractor().extract(file).blocks.map(\.text) == ["After the instruction"])
        }
    }

    /// DTD declarations without their optional values; also what entity-expansion bombs need.
    @Test(arguments: [
        "<!DOCTYPE a [<!ATTLIST a b CDATA #IMPLIED>]>", "<!DOCTYPE a [<!NOTATION n SYSTEM \"x\">]>",
        "<!DOCTYPE a [<!ENTITY e SYSTEM \"x\" NDATA n>]>", "<!DOCTYPE a [<!ENTITY e \"<?m?>\">]>",
    ])
    func aDocumentTypeDeclarationIsAnErrorNotACrash(declaration: String) async throws {
        try await Scratch.run { scratch in
            let file = scratch.url.appendingPathComponent("dtd.docx")
            try DOCXBuilder.write([("word/document.xml", Data((declaration + "<a>&e;</a>").utf8))], to: file)
            await #expect(throws: ExtractionError.corruptDOCX("word/document.xml has a DTD, which Word documents may not contain")) {
                try await DocumentExtractor().extract(file)
            }
        }
    }
}

extension ExtractorFuzzTests {
    /// pdf run, input 2338: a MediaBox 2⁶⁴ points tall on a page without text. Scaled to 50
    /// megapixels its height was still about 10¹² pixels, and converting that to cairo's Int32 trapped.
    @Test(arguments: ["0 18446744073709551616 612 200", "0 0 18446744073709551616 1"])
    func aPageOfAbsurdProportionsIsRenderedNotACrash(mediaBox: String) async throws {
        try await Scratch.run { scratch in
            let pdf = String(decoding: try PDFWriter(pages: [.blank]).data(), as: UTF8.self)
                .replacingOccurrences(of: "/MediaBox [0 0 612 792]", with: "/MediaBox [\(mediaBox)]")
            let file = try scratch.file("tall.pdf", Data(pdf.utf8))
            let document = try await Self.extractor.extract(file)
            #expect(document.pageCount == 1)
        }
    }
}
