/// Character classes of BERT's "basic tokenizer", as the reference (Hugging Face `tokenizers`,
/// which sentence-transformers uses) applies them. Non-ASCII characters are looked up in tables
/// measured from the reference, whose Unicode data is older than Swift's.
enum BertCharacterClass {
    /// Removed before anything else: NUL, U+FFFD, control, format and private-use characters,
    /// except tab, newline and carriage return, which count as whitespace.
    @inline(__always)
    static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return (value < 0x20 && value != 0x09 && value != 0x0A && value != 0x0D) || value == 0x7F
        }
        return contains(BertUnicodeTables.removed, value)
    }

    /// Separates words (Unicode White_Space, plus tab, newline and carriage return).
    @inline(__always)
    static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 {
            return value == 0x20 || value == 0x09 || value == 0x0A || value == 0x0D
        }
        return scalar.properties.isWhitespace
    }

    /// Becomes a word of its own: ASCII punctuation (which includes symbols such as `$`, `+`, `^`)
    /// and Unicode punctuation.
    @inline(__always)
    static func isPunctuation(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        if value < 0x80 { return isASCIIPunctuation(UInt8(value)) }
        return contains(BertUnicodeTables.punctuation, value)
    }

    @inline(__always)
    static func isASCIIPunctuation(_ byte: UInt8) -> Bool {
        (byte >= 33 && byte <= 47) || (byte >= 58 && byte <= 64) || (byte >= 91 && byte <= 96)
            || (byte >= 123 && byte <= 126)
    }

    /// CJK ideographs, each of which becomes a word of its own. Kana and Hangul are not included,
    /// as in BERT.
    @inline(__always)
    static func isCJKIdeograph(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x3400 && contains(BertUnicodeTables.ideographs, scalar.value)
    }

    /// A nonspacing mark, dropped when stripping accents.
    @inline(__always)
    static func isNonspacingMark(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x300 && contains(BertUnicodeTables.nonspacingMarks, scalar.value)
    }

    /// Binary search in sorted, disjoint ranges.
    private static func contains(_ table: [ClosedRange<UInt32>], _ value: UInt32) -> Bool {
        var low = 0, high = table.count
        while low < high {
            let middle = (low + high) / 2
            let range = table[middle]
            if value < range.lowerBound {
                high = middle
            } else if value > range.upperBound {
                low = middle + 1
            } else {
                return true
            }
        }
        return false
    }
}
