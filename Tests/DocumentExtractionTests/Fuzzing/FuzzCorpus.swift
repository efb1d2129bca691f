import Foundation
import TestPDFs
import ZIPFoundation
@testable import DocumentExtraction

/// The seed corpus of each format: the fixtures the other tests already read (so the fuzzer starts
/// from documents known to reach deep into each reader), a few extra shapes, and per-format
/// dictionaries of the tokens that steer each parser.
enum FuzzCorpus {
    // MARK: Text formats

    static let plainText: [Data] = {
        var utf16 = Data([0xFF, 0xFE])
        for unit in "Grüße aus Köln 🎉\n\nZweiter Absatz".utf16 { utf16.append(contentsOf: [UInt8(unit & 0xFF), UInt8(unit >> 8)]) }
        return [
            Data("First line\nsecond line\n\n  \t\nNext paragraph\r\n\r\nLast".utf8),
            utf16,
            Data([0xEF, 0xBB, 0xBF]) + Data("Hello".utf8),
            // "Café – “quoted”" in Windows-1252, which goes down the Latin-1 branch.
            Data([0x43, 0x61, 0x66, 0xE9, 0x20, 0x96, 0x20, 0x93, 0x71, 0x75, 0x6F, 0x74, 0x65, 0x64, 0x94]),
            Data(String(repeating: "A line of a long note.\nAnother line.\n\n", count: 40).utf8),
        ]
    }()

    static let plainTextTokens = ["\r\n\r\n", "\u{2028}", "\u{FEFF}", "\u{0301}", "🎉", "\u{1B}[31m", "\u{0085}"]

    static let markdown: [Data] = [
        Data(MarkdownTests.sample.utf8),
        Data("Intro text\n\n## Details\n\nMore.".utf8),
        Data("Text\n\n~~~\ncode line\n# not a heading".utf8),
        Data("- a\n  - b\n    - c\n\n1. one\n2) two\n\n> quote\n> > nested\n\n| a | b |\n|---|---|\n| 1 | 2 |\n".utf8),
    ]

    static let markdownTokens = [
        "#", "###### ", "\n---\n", "\n===\n", "***", "```", "~~~", "    ", "> ", "- ", "* ", "+ ", "1. ", "2) ",
        "|", "|---|:-:|", "[", "](", "![", "`", "**", "__", "\\", "<!--", "-->", "---\ntitle: x\n---\n", "\n\n",
    ]

    static let html: [Data] = [
        Data(HTMLTests.page.utf8),
        Data("<p>one <b>bold<p>two</i></div> <h2>Head <p>after 1 < 2 </h2><li>loose item".utf8),
        Data("<TITLE>Upper</TITLE><SCRIPT>if (a </b) {}</SCRIPT ><P CLASS='a>b'>Visible<![CDATA[ & raw ]]></P><!-- unterminated".utf8),
        Data("""
            <h2>Functions</h2><dl><dt id="f">f(<em>n</em>)</dt><dd><p>Does f.</p><dl><dt>inner()</dt><dd><p>Nested.</p></dd></dl></dd></dl>
            <div role="navigation"><p>Menu</p></div><p>&lt;a&gt; &eacute;&#65;&#x42; &hellip; &#0; &bogus; & x</p>
            """.utf8),
    ]

    static let htmlTokens = [
        "<p>", "</p>", "<div>", "</div>", "<table>", "<tr>", "<td>", "<th>", "</table>", "<ul>", "<ol>", "<li>", "<dl>", "<dt>", "<dd>",
        "<pre>", "</pre>", "<h1>", "</h1>", "<h6>", "<br>", "<br/>", "<title>", "</title>", "<script>", "</script>", "<style>", "</style>",
        "<nav>", "<!--", "-->", "<![CDATA[", "]]>", "<!DOCTYPE html>", "<?xml version=\"1.0\"?>", " role=\"navigation\"", " class=\"x\"",
        "&amp;", "&#", "&#x", "&#99999999999;", "&#xD800;", "&#x110000;", "&nbsp;", "&", "=", "/>", "</", "<blockquote>", "<",
    ]

    // MARK: PDF

    /// A page of text rendered to a small PNG by poppler and cairo: an image to embed and to sniff.
    /// Small on purpose, so that mutations land in the headers and chunks rather than in pixels.
    static func smallScan() throws -> Data {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-fuzz-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("source.pdf")
        try PDFWriter(pages: [.text(["Scanned words"])]).data().write(to: source)
        return try PDFFile(path: source.path).withPage(0) { try $0.renderPNG(dpi: 12) }
    }

    static func pdf(scan: Data) throws -> [Data] {
        [
            try PDFWriter(pages: [
                .text(["Alpha is on the first page."]),
                .text(["Beta is on the second page."]),
                .text(["Gamma is on the third page (really)."]),
            ], title: "Three Pages").data(),
            try PDFWriter(pages: [.text(["A page with a text layer."]), .image(png: scan), .blank]).data(),
            try PDFWriter(pages: [.text(["Secret text."])], title: "Secret", userPassword: "sesame").data(),
            Data("%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\ngarbage without end\n".utf8),
        ]
    }

    static let pdfTokens = [
        "<<", ">>", "[", "]", "(", ")", "<", ">", "/", "R", " 0 R", "1 0 obj", "/Length", "/Length 99999999999", "/Type", "/Page", "/Pages",
        "/Kids [", "/Count", "/Count -1", "/Contents", "/Resources", "/MediaBox [0 0 99999999999 1]", "/Filter /FlateDecode",
        "/DecodeParms << /Predictor 15 /Columns 99999 >>", "/Encrypt", "/Root", "/Info", "/Title", "xref", "trailer", "startxref",
        "%%EOF", "%PDF-1.7", "BT", "ET", "Tj", "TJ", "Td", "Tf", "q", "Q", "cm", "Do", "/Width 65535", "/Height 65535", "null",
    ]

    // MARK: DOCX

    /// The parts of a complete document, path and contents, in the order Word writes them.
    static let docxParts: [(String, Data)] = [
        ("[Content_Types].xml", Data(DOCXBuilder.contentTypes.utf8)),
        ("_rels/.rels", Data(DOCXBuilder.rootRelationships.utf8)),
        ("word/document.xml", Data(DOCXBuilder.documentXML(body: DOCXTests.body).utf8)),
        ("word/styles.xml", Data(DOCXBuilder.styles.utf8)),
        ("docProps/core.xml", Data(DOCXBuilder.coreProperties(title: "Report 2024").utf8)),
    ]

    /// Whole packages: deflated (as Word writes them) and stored (where a mutation in a part's bytes
    /// survives to the XML parser unless the checksum catches it).
    static func docxPackages() throws -> [Data] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-fuzz-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let deflated = directory.appendingPathComponent("deflated.docx")
        try DOCXBuilder.write(docxParts, to: deflated)
        let small = directory.appendingPathComponent("small.docx")
        try DOCXBuilder.write(body: DOCXBuilder.paragraph("Hello"), title: nil, to: small)
        let stored = directory.appendingPathComponent("stored.docx")
        let archive = try Archive(url: stored, accessMode: .create)
        for (path, data) in docxParts {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        return try [deflated, small, stored].map { try Data(contentsOf: $0) }
    }

    static let docxXMLTokens = [
        "<w:p>", "</w:p>", "<w:r>", "</w:r>", "<w:t>", "</w:t>", "<w:tbl>", "</w:tbl>", "<w:tr>", "<w:tc>", "<w:br/>", "<w:tab/>",
        "<w:pStyle w:val=\"Heading1\"/>", "<w:numPr><w:ilvl w:val=\"99999999999\"/><w:numId w:val=\"1\"/></w:numPr>",
        "<w:outlineLvl w:val=\"-1\"/>", "<w:outlineLvl w:val=\"9223372036854775807\"/>", "<w:basedOn w:val=\"MySection\"/>",
        "<w:del>", "<w:delText>", "<w:gridSpan w:val=\"99999\"/>", "<![CDATA[", "]]>", "<!--", "-->", "&amp;", "&#0;", "&#xFFFF;",
        "<!DOCTYPE w:document [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">]>", "&b;",
        " Target=\"/word/../../etc/passwd\"", " Target=\"\"", " Type=\"x/officeDocument\"", " xmlns:w=\"\"", "<dc:title>", "</dc:title>",
    ]

    /// Zip record signatures and an all-ones 32-bit field (sizes, offsets and counts that mean "see ZIP64").
    static let zipTokens: [[UInt8]] = [
        [0x50, 0x4B, 0x03, 0x04], [0x50, 0x4B, 0x01, 0x02], [0x50, 0x4B, 0x05, 0x06], [0x50, 0x4B, 0x06, 0x06], [0x50, 0x4B, 0x06, 0x07],
        [0xFF, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF], [0x00, 0x00, 0x00, 0x00],
    ]

    // MARK: Images

    /// One small real PNG, and the first bytes of each other format the sniffer knows (or must refuse).
    static func images(scan: Data) -> [Data] {
        [
            scan,
            Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10]) + Data("JFIF".utf8) + Data([0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xD9]),
            Data("GIF89a".utf8) + Data([0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x3B]),
            Data("RIFF".utf8) + Data([0x1A, 0x00, 0x00, 0x00]) + Data("WEBPVP8L".utf8) + Data([0x0D, 0x00, 0x00, 0x00, 0x2F, 0x00, 0x00, 0x00]),
            Data([0x49, 0x49, 0x2A, 0x00, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]),
            Data([0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08, 0x00, 0x00]),
        ]
    }

    /// Signatures, PNG chunk names and JPEG markers, as bytes (some are not valid UTF-8).
    static let imageTokens: [[UInt8]] = [
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], Array("IHDR".utf8), Array("IDAT".utf8), Array("IEND".utf8), Array("PLTE".utf8),
        [0xFF, 0xD8, 0xFF], [0xFF, 0xD9], [0xFF, 0xC0], Array("GIF89a".utf8), Array("RIFF".utf8), Array("WEBP".utf8),
        [0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A],
    ]
}
