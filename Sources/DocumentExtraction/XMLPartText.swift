import Foundation

/// The bytes of a DOCX XML part made safe to hand to `XMLParser`.
///
/// FoundationXML on Linux force-unwraps what libxml2 passes to its callbacks, and some of it can be
/// missing or malformed in a damaged part: a name that is not UTF-8 (`<\u{C4}</w`, which libxml2 in
/// recovery mode passes through), a processing instruction without data (`<?m?>`), and DTD
/// declarations without optional values (`<!ATTLIST a b CDATA #IMPLIED>`, `<!NOTATION …>`, unparsed
/// entities). Any of them traps the whole process, so they are refused or rewritten before parsing.
enum XMLPartText {
    /// Why a part is refused.
    enum Refusal: Error, Equatable {
        case encoding
        case documentTypeDeclaration

        /// Words to follow the part's name in an error message.
        var reason: String {
            switch self {
            case .encoding: "is not UTF-8 or UTF-16 text"
            case .documentTypeDeclaration: "has a DTD, which Word documents may not contain"
            }
        }
    }

    /// The part as UTF-8 with no NUL byte, no XML declaration, no DTD, and data in every processing instruction.
    ///
    /// Open Packaging Conventions allow only UTF-8 and UTF-16 parts and no DTDs, so refusing the rest
    /// costs no real document. UTF-16 is transcoded here and the declaration dropped, so that an
    /// `encoding=` in it cannot make libxml2 decode the checked text again as something else; NUL
    /// (never legal in XML) is refused so that libxml2's sniffing of the first bytes cannot take the
    /// text for UTF-16 or UCS-4.
    static func prepared(_ data: Data) throws(Refusal) -> Data {
        var text: String
        if data.starts(with: [0xFF, 0xFE]) || data.starts(with: [0xFE, 0xFF]) {
            guard let decoded = TextDecoding.utf16(data.dropFirst(2), littleEndian: data.first == 0xFF) else { throw .encoding }
            text = decoded
        } else if data.count >= 2, data[data.startIndex] == 0 || data[data.startIndex + 1] == 0 {
            // UTF-16 without a byte-order mark: `<` next to a zero byte.
            guard let decoded = TextDecoding.utf16(data, littleEndian: data[data.startIndex + 1] == 0) else { throw .encoding }
            text = decoded
        } else {
            let body = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
            guard let decoded = String(validating: body, as: UTF8.self) else { throw .encoding }
            text = decoded
        }
        guard !text.utf8.contains(0) else { throw .encoding }
        if text.hasPrefix("<?xml"), let end = text.range(of: "?>") {
            text = String(text[end.upperBound...])
        }
        var bytes = Data(text.utf8)
        guard bytes.range(of: Data("<!DOCTYPE".utf8)) == nil else { throw .documentTypeDeclaration }
        givingEveryProcessingInstructionData(&bytes)
        return bytes
    }

    /// `<?name?>` becomes `<?name ?>`: libxml2 reports the first with no data at all (a null pointer,
    /// which FoundationXML dereferences) and the second with empty data.
    static func givingEveryProcessingInstructionData(_ bytes: inout Data) {
        let opening = Data("<?".utf8)
        var searchFrom = bytes.startIndex
        while let start = bytes.range(of: opening, in: searchFrom..<bytes.endIndex) {
            var end = start.upperBound
            // The target runs to the first blank or `?`; a PI with data has a blank after its target.
            while end < bytes.endIndex, !" \t\r\n?".utf8.contains(bytes[end]) { end += 1 }
            if end + 1 < bytes.endIndex, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") {
                bytes.insert(UInt8(ascii: " "), at: end)
                end += 1
            }
            searchFrom = end
        }
    }
}
