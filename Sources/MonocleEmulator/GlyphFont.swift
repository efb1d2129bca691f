import Foundation
import Synchronization

/// Bitmap glyphs read from a font data file in GNU Unifont's `.hex` format: one line per code point,
/// `XXXX:` and then 32 hex digits (an 8×16 glyph) or 64 (a 16×16 one, for wide characters such as CJK).
public struct GlyphFont: Sendable {
    /// One glyph: `rows` of `width` pixels, the leftmost in the row's most significant bit.
    public struct Glyph: Sendable, Hashable {
        public var width: Int
        public var rows: [UInt16]

        /// Whether the pixel at (x, y) is set.
        public func isSet(x: Int, y: Int) -> Bool {
            rows[y] & (1 << UInt16(width - 1 - x)) != 0
        }
    }

    /// The glyphs' height in pixels.
    public let height = 16
    private let glyphs: [UInt32: Glyph]

    /// Reads a `.hex` file; lines that are not glyphs are skipped.
    public init(hexFile url: URL) throws {
        self.init(hex: [UInt8](try Data(contentsOf: url)))
    }

    /// Parses `.hex` text.
    public init(hex text: String) {
        self.init(hex: Array(text.utf8))
    }

    /// Parses `.hex` bytes (byte by byte: the whole of Unifont is 57,000 lines).
    init(hex bytes: [UInt8]) {
        func digit(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            default: nil
            }
        }
        var glyphs: [UInt32: Glyph] = [:]
        var index = 0
        while index < bytes.count {
            var end = index
            while end < bytes.count, bytes[end] != 0x0A { end += 1 }
            defer { index = end + 1 }
            var colon = index
            var code: UInt32 = 0
            while colon < end, let value = digit(bytes[colon]) {
                code = code << 4 | value
                colon += 1
            }
            guard colon > index, colon < end, bytes[colon] == UInt8(ascii: ":") else { continue }
            var digits = end - colon - 1
            if digits > 0, bytes[end - 1] == 0x0D { digits -= 1 }
            guard digits == 32 || digits == 64 else { continue }
            let perRow = digits / 16
            var rows = [UInt16](repeating: 0, count: 16)
            var valid = true
            for position in 0..<digits {
                guard let value = digit(bytes[colon + 1 + position]) else { valid = false; break }
                rows[position / perRow] = rows[position / perRow] << 4 | UInt16(value)
            }
            if valid { glyphs[code] = Glyph(width: perRow * 4, rows: rows) }
        }
        self.glyphs = glyphs
    }

    /// The glyph for a character, if the font has one.
    public func glyph(for scalar: Unicode.Scalar) -> Glyph? {
        glyphs[scalar.value]
    }

    /// Where Debian's `unifont` package puts GNU Unifont.
    public static let unifontPath = URL(fileURLWithPath: "/usr/share/unifont/unifont.hex")

    private static let loaded = Mutex<GlyphFont??>(nil)

    /// GNU Unifont, read once; nil when the file is missing (the `unifont` package is not installed).
    public static var unifont: GlyphFont? {
        loaded.withLock { cached in
            if let cached { return cached }
            let font = try? GlyphFont(hexFile: unifontPath)
            cached = .some(font)
            return font
        }
    }
}
