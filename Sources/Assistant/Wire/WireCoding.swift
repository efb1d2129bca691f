public import Foundation

/// Sibyl's JSON vocabulary, shared by every `--json` output and the HTTP API: camelCase keys,
/// ids as lowercase UUID strings, dates as ISO 8601 in UTC with milliseconds, absent values left out.
public enum Wire {}

/// The one JSON configuration of the wire types.
public enum WireCoding {
    /// Readable JSON with sorted keys, for the CLI and the API.
    public static var encoder: JSONEncoder {
        let encoder = compactEncoder
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// One-line JSON with sorted keys, for events and log lines.
    public static var compactEncoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(dateString(date))
        }
        return encoder
    }

    /// Reads what `encoder` writes; dates with or without fractional seconds.
    public static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "'\(text)' is not an ISO 8601 date")
            }
            return date
        }
        return decoder
    }

    /// `2026-11-23T22:25:42.123Z`.
    public static func dateString(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    /// Parses an ISO 8601 date, with or without fractional seconds.
    public static func date(from text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text)) ?? (try? Date.ISO8601FormatStyle().parse(text))
    }

    /// A value as one line of JSON text.
    public static func jsonText(_ value: some Encodable) -> String {
        (try? compactEncoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }

    /// A value as readable JSON, ending with a newline.
    public static func prettyText(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }
}

extension UUID {
    /// The id as the wire writes it: lowercase.
    public var wireString: String { uuidString.lowercased() }
}
