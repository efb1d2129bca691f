import Crypto
import Foundation

/// A tiny PDF writer for test fixtures and benchmarks: pages of Helvetica text, pages that are
/// only an image (a scan, to be OCR'd), blank pages, pages drawn by a content stream of the
/// caller's, a title, and optional RC4 encryption with a user password.
public struct PDFWriter {
    /// One page.
    public enum Page {
        /// Lines of 20-point Helvetica, one below the other.
        case text([String])
        /// A PNG (8-bit RGB or grey, not interlaced) drawn over the whole page, which has no text layer.
        case image(png: Data)
        case blank
        /// A page `height` points high drawn by a content stream, in which `/F1` is Helvetica.
        case content(String, height: Int)
    }

    public var pages: [Page]
    public var title: String?
    /// Encrypts with the standard security handler (revision 2, 40-bit RC4) under this user password.
    public var userPassword: String?

    public init(pages: [Page], title: String? = nil, userPassword: String? = nil) {
        self.pages = pages
        self.title = title
        self.userPassword = userPassword
    }

    private static let pageWidth = 612.0
    private static let lineHeight = 28.0

    /// The PDF file.
    public func data() throws -> Data {
        var objects: [Object] = []
        func reserve() -> Int {
            objects.append(Object(dictionary: "", stream: nil))
            return objects.count
        }
        let catalog = reserve(), pagesRoot = reserve(), font = reserve()
        let info = title == nil ? nil : reserve()
        var pageNumbers: [Int] = []
        for page in pages {
            let pageObject = reserve(), contents = reserve()
            pageNumbers.append(pageObject)
            var resources = "/Font << /F1 \(font) 0 R >>"
            var height = 792.0
            var content = Data()
            switch page {
            case .text(let lines):
                height = max(200, 120 + Self.lineHeight * Double(lines.count))
                var text = "BT /F1 20 Tf 50 \(Int(height) - 70) Td \(Int(Self.lineHeight)) TL\n"
                for line in lines { text += "(\(Self.escaped(line))) Tj T*\n" }
                text += "ET"
                content = Data(text.utf8)
            case .image(let png):
                let image = try PNGImage(png)
                height = Self.pageWidth * Double(image.height) / Double(image.width)
                let imageObject = reserve()
                objects[imageObject - 1] = Object(
                    dictionary: "/Type /XObject /Subtype /Image /Width \(image.width) /Height \(image.height) /ColorSpace /\(image.colors == 3 ? "DeviceRGB" : "DeviceGray") /BitsPerComponent 8 /Filter /FlateDecode /DecodeParms << /Predictor 15 /Colors \(image.colors) /BitsPerComponent 8 /Columns \(image.width) >>",
                    stream: image.zlibData
                )
                resources += " /XObject << /Im1 \(imageObject) 0 R >>"
                content = Data("q \(Self.pageWidth) 0 0 \(height) 0 0 cm /Im1 Do Q".utf8)
            case .blank:
                content = Data()
            case .content(let stream, let pageHeight):
                height = Double(pageHeight)
                content = Data(stream.utf8)
            }
            objects[pageObject - 1] = Object(dictionary: "/Type /Page /Parent \(pagesRoot) 0 R /MediaBox [0 0 \(Int(Self.pageWidth)) \(Int(height.rounded(.up)))] /Contents \(contents) 0 R /Resources << \(resources) >>", stream: nil)
            objects[contents - 1] = Object(dictionary: "", stream: content)
        }
        objects[catalog - 1] = Object(dictionary: "/Type /Catalog /Pages \(pagesRoot) 0 R", stream: nil)
        objects[pagesRoot - 1] = Object(dictionary: "/Type /Pages /Kids [\(pageNumbers.map { "\($0) 0 R" }.joined(separator: " "))] /Count \(pageNumbers.count)", stream: nil)
        objects[font - 1] = Object(dictionary: "/Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding", stream: nil)

        let fileID = Data((0..<16).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        var security: StandardSecurity?
        if let userPassword {
            security = StandardSecurity(userPassword: userPassword, ownerPassword: userPassword + "-owner", fileID: fileID)
        }
        if let info, let title {
            let bytes = security?.encrypt(Data(title.utf8), object: info) ?? Data(title.utf8)
            objects[info - 1] = Object(dictionary: "/Title <\(Self.hex(bytes))> /Producer (Sibyl tests)", stream: nil)
        }
        var encryptObject: Int?
        if let security {
            objects.append(Object(dictionary: "/Filter /Standard /V 1 /R 2 /Length 40 /O <\(Self.hex(security.ownerKey))> /U <\(Self.hex(security.userKey))> /P \(security.permissions)", stream: nil))
            encryptObject = objects.count
        }

        var pdf = Data("%PDF-1.4\n%\u{E2}\u{E3}\u{CF}\u{D3}\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(pdf.count)
            let number = index + 1
            pdf.append(Data("\(number) 0 obj\n".utf8))
            if var stream = object.stream {
                if let security, number != encryptObject { stream = security.encrypt(stream, object: number) }
                pdf.append(Data("<< \(object.dictionary) /Length \(stream.count) >>\nstream\n".utf8))
                pdf.append(stream)
                pdf.append(Data("\nendstream\n".utf8))
            } else {
                pdf.append(Data("<< \(object.dictionary) >>\n".utf8))
            }
            pdf.append(Data("endobj\n".utf8))
        }
        let xref = pdf.count
        var trailer = "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { trailer += String(format: "%010d 00000 n \n", offset) }
        trailer += "trailer\n<< /Size \(objects.count + 1) /Root \(catalog) 0 R"
        if let info { trailer += " /Info \(info) 0 R" }
        if let encryptObject { trailer += " /Encrypt \(encryptObject) 0 R" }
        trailer += " /ID [<\(Self.hex(fileID))> <\(Self.hex(fileID))>] >>\nstartxref\n\(xref)\n%%EOF\n"
        pdf.append(Data(trailer.utf8))
        return pdf
    }

    private struct Object {
        var dictionary: String
        var stream: Data?
    }

    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "(", with: "\\(").replacingOccurrences(of: ")", with: "\\)")
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02X", $0) }.joined()
    }
}

/// The PDF standard security handler, revision 2 (PDF 1.4 reference, algorithms 3.1–3.4).
struct StandardSecurity {
    let ownerKey: Data
    let userKey: Data
    let permissions: Int32 = -44
    private let fileKey: Data

    static let padding = Data([
        0x28, 0xBF, 0x4E, 0x5E, 0x4E, 0x75, 0x8A, 0x41, 0x64, 0x00, 0x4E, 0x56, 0xFF, 0xFA, 0x01, 0x08,
        0x2E, 0x2E, 0x00, 0xB6, 0xD0, 0x68, 0x3E, 0x80, 0x2F, 0x0C, 0xA9, 0xFE, 0x64, 0x53, 0x69, 0x7A,
    ])

    init(userPassword: String, ownerPassword: String, fileID: Data) {
        let ownerRC4Key = Data(Insecure.MD5.hash(data: Self.padded(ownerPassword))).prefix(5)
        ownerKey = RC4.apply(key: ownerRC4Key, to: Self.padded(userPassword))
        var material = Self.padded(userPassword)
        material.append(ownerKey)
        withUnsafeBytes(of: permissions.littleEndian) { material.append(contentsOf: $0) }
        material.append(fileID)
        fileKey = Data(Insecure.MD5.hash(data: material)).prefix(5)
        userKey = RC4.apply(key: fileKey, to: Self.padding)
    }

    static func padded(_ password: String) -> Data {
        (Data(password.utf8).prefix(32) + padding).prefix(32)
    }

    /// Encrypts a string or stream of object `number` (generation 0).
    func encrypt(_ data: Data, object number: Int) -> Data {
        var material = fileKey
        material.append(contentsOf: [UInt8(number & 0xFF), UInt8(number >> 8 & 0xFF), UInt8(number >> 16 & 0xFF), 0, 0])
        let key = Data(Insecure.MD5.hash(data: material)).prefix(min(fileKey.count + 5, 16))
        return RC4.apply(key: key, to: data)
    }
}

enum RC4 {
    static func apply(key: Data, to data: Data) -> Data {
        let key = [UInt8](key)
        var state = [UInt8](0...255)
        var j = 0
        for i in 0..<256 {
            j = (j + Int(state[i]) + Int(key[i % key.count])) & 0xFF
            state.swapAt(i, j)
        }
        var i = 0
        j = 0
        var output = [UInt8]()
        output.reserveCapacity(data.count)
        for byte in data {
            i = (i + 1) & 0xFF
            j = (j + Int(state[i])) & 0xFF
            state.swapAt(i, j)
            output.append(byte ^ state[(Int(state[i]) + Int(state[j])) & 0xFF])
        }
        return Data(output)
    }
}

/// The parts of a PNG a PDF image XObject needs: PDF's Flate predictor 15 reads PNG's filtered rows as they are.
struct PNGImage {
    var width: Int
    var height: Int
    var colors: Int
    var zlibData: Data

    struct Unsupported: Error {}

    init(_ png: Data) throws {
        let bytes = [UInt8](png)
        guard bytes.count > 8, bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) else { throw Unsupported() }
        var offset = 8
        var header: [UInt8] = []
        var idat = Data()
        while offset + 8 <= bytes.count {
            let length = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: bytes[(offset + 4)..<(offset + 8)], as: UTF8.self)
            let body = bytes[(offset + 8)..<(offset + 8 + length)]
            if type == "IHDR" { header = Array(body) }
            if type == "IDAT" { idat.append(contentsOf: body) }
            offset += 12 + length
        }
        guard header.count == 13, header[8] == 8, header[12] == 0, header[9] == 2 || header[9] == 0 else { throw Unsupported() }
        width = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
        height = header[4..<8].reduce(0) { $0 << 8 | Int($1) }
        colors = header[9] == 2 ? 3 : 1
        zlibData = idat
    }
}
