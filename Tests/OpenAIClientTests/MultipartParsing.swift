import Foundation

/// Reads a multipart/form-data body back into its parts, to check what the client sent.
struct MultipartParts {
    struct Part {
        var name: String
        var filename: String?
        var contentType: String?
        var data: Data
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    var parts: [Part] = []

    subscript(name: String) -> Part? { parts.first { $0.name == name } }

    init?(body: Data, contentType: String) {
        guard let boundaryRange = contentType.range(of: "boundary=") else { return nil }
        let boundary = Data("--\(contentType[boundaryRange.upperBound...])".utf8)
        let bytes = body
        var cursor = bytes.startIndex
        var sections: [Data] = []
        while let range = bytes.range(of: boundary, in: cursor..<bytes.endIndex) {
            if cursor != bytes.startIndex { sections.append(bytes[cursor..<range.lowerBound]) }
            cursor = range.upperBound
        }
        for section in sections {
            guard let split = section.range(of: Data("\r\n\r\n".utf8)) else { continue }
            let head = String(decoding: section[section.startIndex..<split.lowerBound], as: UTF8.self)
            var content = section[split.upperBound...]
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            func parameter(_ key: String) -> String? {
                guard let range = head.range(of: "\(key)=\"") else { return nil }
                let rest = head[range.upperBound...]
                return rest.firstIndex(of: "\"").map { String(rest[..<$0]) }
            }
            let type = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
                .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
            parts.append(Part(name: parameter("name") ?? "", filename: parameter("filename"), contentType: type, data: Data(content)))
        }
    }
}
