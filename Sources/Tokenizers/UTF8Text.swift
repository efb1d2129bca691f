/// A view of valid UTF-8 bytes that the pre-tokenisers walk scalar by scalar.
///
/// `end` is where the current segment stops (text before a special token is split on its own,
/// so for the patterns' `$` and `(?!\S)` the segment end is the end of the text), while `limit`
/// is where readable memory stops, which the rank lookups use to load whole words at once.
struct UTF8Text {
    let base: UnsafePointer<UInt8>
    let end: Int
    let limit: Int
    let flags: UnsafePointer<UInt8>

    /// The byte at `index`.
    @inline(__always)
    func byte(_ index: Int) -> UInt8 {
        base[index]
    }

    /// The class flags and UTF-8 length of the scalar starting at `index`.
    @inline(__always)
    func scalar(at index: Int) -> (flags: UInt8, length: Int) {
        let lead = base[index]
        if lead < 0x80 {
            return (flags[Int(lead)], 1)
        }
        return multiByteScalar(lead: lead, at: index)
    }

    @inline(__always)
    private func multiByteScalar(lead: UInt8, at index: Int) -> (flags: UInt8, length: Int) {
        // Swift strings hold valid UTF-8, so the continuation bytes need no checks.
        let b1 = Int(base[index + 1] & 0x3F)
        if lead < 0xE0 {
            return (flags[Int(lead & 0x1F) << 6 | b1], 2)
        }
        let b2 = Int(base[index + 2] & 0x3F)
        if lead < 0xF0 {
            return (flags[Int(lead & 0x0F) << 12 | b1 << 6 | b2], 3)
        }
        let b3 = Int(base[index + 3] & 0x3F)
        return (flags[Int(lead & 0x07) << 18 | b1 << 12 | b2 << 6 | b3], 4)
    }

    /// Where the contraction `'s 't 're 've 'm 'll 'd` (any case) starting at `index` ends, or nil.
    ///
    /// tiktoken matches these case-insensitively with Unicode simple case folding, under which
    /// `s` also matches U+017F LATIN SMALL LETTER LONG S (`ſ`, UTF-8 C5 BF).
    @inline(__always)
    func contractionEnd(at index: Int) -> Int? {
        guard index + 1 < end, base[index] == 0x27 else { return nil }
        let first = base[index + 1] | 0x20  // ASCII lower case; harmless for the bytes tested below
        switch first {
        case UInt8(ascii: "s"), UInt8(ascii: "t"), UInt8(ascii: "m"), UInt8(ascii: "d"):
            return index + 2
        case UInt8(ascii: "r"), UInt8(ascii: "v"):
            return index + 2 < end && base[index + 2] | 0x20 == UInt8(ascii: "e") ? index + 3 : nil
        case UInt8(ascii: "l"):
            return index + 2 < end && base[index + 2] | 0x20 == UInt8(ascii: "l") ? index + 3 : nil
        default:
            if base[index + 1] == 0xC5, index + 2 < end, base[index + 2] == 0xBF {
                return index + 3
            }
            return nil
        }
    }
}
