import Foundation

/// Moonshine's vocabulary (`tokenizer.bin`): for each token id in order, its length and bytes. The
/// length is one byte, or two when the first has its high bit set (low seven bits first). Words
/// start with "▁" (U+2581) where the text has a space; bytes the vocabulary lacks are tokens of
/// one raw byte each.
struct MoonshineTokenizer: Sendable {
    let tokens: [Data]

    static let start = 1
    static let end = 2

    init(contentsOf url: URL) throws {
        try self.init(data: Data(contentsOf: url))
    }

    init(data: Data) throws {
        let bytes = [UInt8](data)
        var tokens: [Data] = []
        var index = 0
        while index < bytes.count {
            var length = Int(bytes[index])
            index += 1
            if length >= 0x80 {
                guard index < bytes.count else { throw MoonshineError.badTokenizer("a length runs past the end") }
                length = (length & 0x7F) | Int(bytes[index]) << 7
                index += 1
            }
            guard index + length <= bytes.count else { throw MoonshineError.badTokenizer("token \(tokens.count) runs past the end") }
            tokens.append(Data(bytes[index..<index + length]))
            index += length
        }
        guard tokens.count > Self.end else { throw MoonshineError.badTokenizer("only \(tokens.count) tokens") }
        self.tokens = tokens
    }

    /// The text of token ids (special and unknown ids are left out).
    func text(_ ids: [Int]) -> String {
        var bytes = Data()
        for id in ids where id > Self.end && id < tokens.count { bytes.append(tokens[id]) }
        return String(decoding: bytes, as: UTF8.self)
            .replacingOccurrences(of: "\u{2581}", with: " ")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Why Moonshine could not transcribe.
public enum MoonshineError: Error, Equatable, LocalizedError {
    case badTokenizer(String)
    case badOutput(String)
    /// Moonshine base hears English only; this language code was asked for.
    case englishOnly(String)

    public var errorDescription: String? {
        switch self {
        case .badTokenizer(let reason): "Moonshine's tokenizer.bin cannot be read: \(reason)."
        case .badOutput(let reason): "Moonshine gave an output of an unexpected shape: \(reason)."
        case .englishOnly(let language): "Moonshine hears English only, not \"\(language)\": Whisper transcribes other languages."
        }
    }
}
