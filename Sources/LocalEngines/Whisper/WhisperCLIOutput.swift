import Foundation

/// The parts of `whisper-cli -oj` output Sibyl uses.
struct WhisperCLIOutput: Decodable, Sendable {
    struct Result: Decodable, Sendable {
        /// The language given, or the one detected with `-l auto`.
        var language: String?
    }

    struct Segment: Decodable, Sendable {
        struct Offsets: Decodable, Sendable {
            /// Milliseconds from the start of the audio.
            var from: Int
            var to: Int
        }

        var text: String
        var offsets: Offsets?
    }

    var result: Result?
    var transcription: [Segment]

    /// Marker whisper emits for a stretch of silence.
    private static let blankAudio = "[BLANK_AUDIO]"

    /// The segments joined into one text, without silence markers.
    var text: String {
        transcription
            .map(\.text)
            .filter { $0.trimmingCharacters(in: .whitespacesAndNewlines).uppercased() != Self.blankAudio }
            .joined()
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Parses the JSON file whisper-cli wrote.
    ///
    /// whisper-cli escapes only quotes and backslashes, and a segment can end inside a multi-byte
    /// character, so control characters inside strings are escaped and invalid UTF-8 is replaced
    /// before decoding.
    init(json data: Data) throws {
        let repaired = Self.escapingControlCharactersInStrings(Data(String(decoding: data, as: UTF8.self).utf8))
        do {
            self = try JSONDecoder().decode(Self.self, from: repaired)
        } catch {
            throw WhisperError.unreadableOutput(String(describing: error))
        }
    }

    static func escapingControlCharactersInStrings(_ data: Data) -> Data {
        var out = Data(capacity: data.count)
        var inString = false
        var escaped = false
        for byte in data {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                } else if byte < 0x20 {
                    out.append(contentsOf: Array(String(format: "\\u%04x", byte).utf8))
                    continue
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            }
            out.append(byte)
        }
        return out
    }
}
