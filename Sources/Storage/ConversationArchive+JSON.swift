public import Foundation

extension ConversationArchive {
    /// Reads an archive from JSON, checking that it is a Sibyl conversation archive of a known version.
    ///
    /// Throws `invalidArchive` for text that is not JSON or lacks fields, `unsupportedArchiveFormat`
    /// for other JSON documents and `unsupportedArchiveVersion` for layouts this build does not know.
    public init(jsonData: Data) throws {
        let decoder = Self.decoder()
        // The header is read on its own first, so that a newer or foreign document is reported
        // as such instead of as whichever field happens to fail to decode.
        let header: Header
        do {
            header = try decoder.decode(Header.self, from: jsonData)
        } catch let error as DecodingError {
            throw StorageError.invalidArchive(Self.describe(error))
        }
        guard let format = header.format else {
            throw StorageError.invalidArchive("it has no \"format\" field")
        }
        guard format == Self.formatIdentifier else { throw StorageError.unsupportedArchiveFormat(format) }
        guard let version = header.version else {
            throw StorageError.invalidArchive("it has no \"version\" field")
        }
        try Self.checkHeader(format: format, version: version)
        do {
            self = try decoder.decode(ConversationArchive.self, from: jsonData)
        } catch let error as DecodingError {
            throw StorageError.invalidArchive(Self.describe(error))
        }
    }

    /// The archive as pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.iso8601(date))
        }
        encoder.dataEncodingStrategy = .base64
        return try encoder.encode(self)
    }

    private struct Header: Decodable {
        var format: String?
        var version: Int?
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.parseISO8601(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO-8601 date")
            }
            return date
        }
        decoder.dataDecodingStrategy = .base64
        return decoder
    }

    /// Says where in the document decoding failed, as `messages[2].role: …`.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ keys: [any CodingKey]) -> String {
            var text = ""
            for key in keys {
                if let index = key.intValue {
                    text += "[\(index)]"
                } else {
                    text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
                }
            }
            return text.isEmpty ? "the document" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(path(context.codingPath + [key])) is missing"
        case .valueNotFound(_, let context):
            return "\(path(context.codingPath)) is null"
        case .typeMismatch(let type, let context):
            return context.codingPath.isEmpty
                ? "the top level is not a JSON object"
                : "\(path(context.codingPath)) is not a \(type)"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty
                ? "it is not valid JSON"
                : "\(path(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return error.localizedDescription
        }
    }
}
