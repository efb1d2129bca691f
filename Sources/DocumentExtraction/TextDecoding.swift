import Foundation

/// Turns the bytes of a text file into a string: UTF-8, UTF-16 with a byte-order mark, or, for
/// input that is clearly text, Windows-1252/Latin-1. Anything else is an error rather than mojibake.
enum TextDecoding {
    struct Decoded {
        var text: String
        /// Set when the text was not UTF-8, to tell the user what was assumed.
        var note: String?
    }

    /// How many leading bytes are examined to tell text from binary.
    static let sampleSize = 64 * 1024

    static func decode(_ data: Data, fileExtension: String) throws -> Decoded {
        if data.starts(with: [0xEF, 0xBB, 0xBF]) {
            guard let text = String(validating: data.dropFirst(3), as: UTF8.self) else { throw ExtractionError.notValidUTF8 }
            return Decoded(text: normalizingNewlines(text))
        }
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            let littleEndian = data.first == 0xFF
            guard let text = utf16(data.dropFirst(2), littleEndian: littleEndian) else { throw ExtractionError.notValidUTF8 }
            return Decoded(text: normalizingNewlines(text), note: "decoded as UTF-16")
        }
        try rejectBinary(data, fileExtension: fileExtension)
        if let text = String(validating: data, as: UTF8.self) {
            return Decoded(text: normalizingNewlines(text))
        }
        guard looksLikeSingleByteText(data) else { throw ExtractionError.notValidUTF8 }
        return Decoded(text: normalizingNewlines(windows1252(data)), note: "not UTF-8; decoded as Windows-1252 (Latin-1)")
    }

    /// Throws `binaryContent` for bytes that are plainly not text: a known binary signature, a NUL
    /// byte, or many control characters.
    static func rejectBinary(_ data: Data, fileExtension: String) throws {
        let sample = data.prefix(sampleSize)
        let signatures: [[UInt8]] = [
            [0x25, 0x50, 0x44, 0x46, 0x2D], // %PDF-
            [0x50, 0x4B, 0x03, 0x04], // zip (docx, xlsx, jar …)
            [0x89, 0x50, 0x4E, 0x47], // PNG
            [0xFF, 0xD8, 0xFF], // JPEG
            [0x7F, 0x45, 0x4C, 0x46], // ELF
            [0x1F, 0x8B], // gzip
            [0xD0, 0xCF, 0x11, 0xE0], // OLE (old Office)
        ]
        if signatures.contains(where: { sample.starts(with: $0) }) {
            throw ExtractionError.binaryContent(fileExtension: fileExtension)
        }
        var controls = 0
        for byte in sample where byte < 0x20 {
            switch byte {
            case 0x00: throw ExtractionError.binaryContent(fileExtension: fileExtension)
            case 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x1B: continue
            default: controls += 1
            }
        }
        if controls * 100 > sample.count * 2 { throw ExtractionError.binaryContent(fileExtension: fileExtension) }
    }

    /// Single-byte text: mostly ASCII, with the non-ASCII bytes spread thinly (as accented letters are).
    static func looksLikeSingleByteText(_ data: Data) -> Bool {
        let sample = data.prefix(sampleSize)
        let high = sample.reduce(0) { $0 + ($1 >= 0x80 ? 1 : 0) }
        return high * 100 <= sample.count * 30
    }

    static func utf16(_ data: Data, littleEndian: Bool) -> String? {
        guard data.count.isMultiple(of: 2) else { return nil }
        var units: [UInt16] = []
        units.reserveCapacity(data.count / 2)
        var index = data.startIndex
        while index < data.endIndex {
            let first = UInt16(data[index]), second = UInt16(data[index + 1])
            units.append(littleEndian ? first | second << 8 : first << 8 | second)
            index += 2
        }
        return String(validating: units, as: UTF16.self)
    }

    /// Windows-1252, which agrees with Latin-1 except that 0x80–0x9F are printable characters.
    static func windows1252(_ data: Data) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.reserveCapacity(data.count)
        for byte in data {
            if (0x80...0x9F).contains(byte), let mapped = cp1252High[Int(byte - 0x80)] {
                scalars.append(mapped)
            } else {
                scalars.append(Unicode.Scalar(byte))
            }
        }
        return String(scalars)
    }

    /// 0x80–0x9F in Windows-1252; nil where it leaves the byte undefined (kept as the Latin-1 control).
    private static let cp1252High: [Unicode.Scalar?] = [
        "\u{20AC}", nil, "\u{201A}", "\u{0192}", "\u{201E}", "\u{2026}", "\u{2020}", "\u{2021}",
        "\u{02C6}", "\u{2030}", "\u{0160}", "\u{2039}", "\u{0152}", nil, "\u{017D}", nil,
        nil, "\u{2018}", "\u{2019}", "\u{201C}", "\u{201D}", "\u{2022}", "\u{2013}", "\u{2014}",
        "\u{02DC}", "\u{2122}", "\u{0161}", "\u{203A}", "\u{0153}", nil, "\u{017E}", "\u{0178}",
    ]

    static func normalizingNewlines(_ text: String) -> String {
        guard text.utf8.contains(0x0D) else { return text }
        return text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\r", with: "\n")
    }
}
