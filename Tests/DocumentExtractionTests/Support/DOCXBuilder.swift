import Foundation
import ZIPFoundation

/// Assembles minimal Word documents for tests.
enum DOCXBuilder {
    static let wordNamespace = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"

    /// A paragraph, optionally styled and numbered.
    static func paragraph(_ text: String, style: String? = nil, numbered: Bool = false) -> String {
        var properties = ""
        if let style { properties += "<w:pStyle w:val=\"\(style)\"/>" }
        if numbered { properties += "<w:numPr><w:ilvl w:val=\"0\"/><w:numId w:val=\"1\"/></w:numPr>" }
        let runs = text.components(separatedBy: "\t").map { "<w:t xml:space=\"preserve\">\(escaped($0))</w:t>" }.joined(separator: "<w:tab/>")
        return "<w:p>\(properties.isEmpty ? "" : "<w:pPr>\(properties)</w:pPr>")<w:r>\(runs)</w:r></w:p>"
    }

    static func table(_ rows: [[String]]) -> String {
        let body = rows.map { row in
            "<w:tr>" + row.map { "<w:tc><w:tcPr><w:tcW w:w=\"2000\" w:type=\"dxa\"/></w:tcPr>\(paragraph($0))</w:tc>" }.joined() + "</w:tr>"
        }.joined()
        return "<w:tbl><w:tblPr><w:tblStyle w:val=\"TableGrid\"/></w:tblPr>\(body)</w:tbl>"
    }

    static func documentXML(body: String) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<w:document xmlns:w=\"\(wordNamespace)\"><w:body>\(body)<w:sectPr/></w:body></w:document>"
    }

    static let contentTypes = """
        <?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">\
        <Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>\
        <Default Extension="xml" ContentType="application/xml"/>\
        <Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>
        """

    static let rootRelationships = """
        <?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">\
        <Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/>\
        <Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>
        """

    /// Styles as Word names them: IDs "Heading1"…, names "heading 1"…, plus a custom style based on Heading 2.
    static let styles = """
        <?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="\(wordNamespace)">\
        <w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>\
        <w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>\
        <w:style w:type="paragraph" w:styleId="Heading2"><w:name w:val="heading 2"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>\
        <w:style w:type="paragraph" w:styleId="MySection"><w:name w:val="My Section"/><w:basedOn w:val="Heading2"/></w:style>\
        <w:style w:type="paragraph" w:styleId="ListBullet"><w:name w:val="List Bullet"/><w:pPr><w:numPr><w:numId w:val="2"/></w:numPr></w:pPr></w:style>\
        </w:styles>
        """

    static func coreProperties(title: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?><cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" \
        xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>\(escaped(title))</dc:title><dc:creator>Sibyl tests</dc:creator></cp:coreProperties>
        """
    }

    /// Writes a .docx holding `parts` (path → contents), deflated.
    static func write(_ parts: [(String, Data)], to url: URL) throws {
        let archive = try Archive(url: url, accessMode: .create)
        for (path, data) in parts {
            try archive.addEntry(with: path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .deflate) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
    }

    /// A complete document with the standard parts around `body`.
    static func write(body: String, title: String?, to url: URL) throws {
        var parts: [(String, Data)] = [
            ("[Content_Types].xml", Data(contentTypes.utf8)),
            ("_rels/.rels", Data(rootRelationships.utf8)),
            ("word/document.xml", Data(documentXML(body: body).utf8)),
            ("word/styles.xml", Data(styles.utf8)),
        ]
        if let title { parts.append(("docProps/core.xml", Data(coreProperties(title: title).utf8))) }
        try write(parts, to: url)
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
