/// Splits text into the pieces that byte-pair encoding then works on, one piece at a time,
/// exactly as an encoding's regular expression would under tiktoken's leftmost-first semantics.
///
/// Each conformer is a hand-written matcher for one pattern: a general regex engine is both far
/// slower and, for the possessive quantifiers and look-ahead these patterns use, not available
/// in every Swift runtime.
protocol PreTokenizer {
    /// Where the piece that starts at `start` (which is before `text.end`) ends.
    static func pieceEnd(in text: UTF8Text, from start: Int) -> Int
}

extension UTF8Text {
    /// The end of the run of scalars, from `index`, whose flags intersect `mask`.
    @inline(__always)
    func run(from index: Int, while mask: UInt8) -> Int {
        var position = index
        while position < end {
            let (flags, length) = scalar(at: position)
            if flags & mask == 0 { break }
            position += length
        }
        return position
    }

    /// The end of the run of scalars, from `index`, whose flags avoid `mask` entirely.
    @inline(__always)
    func run(from index: Int, whileNot mask: UInt8) -> Int {
        var position = index
        while position < end {
            let (flags, length) = scalar(at: position)
            if flags & mask != 0 { break }
            position += length
        }
        return position
    }

    /// The end of a run of whitespace at `start`, for the patterns' whitespace alternatives.
    @inline(__always)
    func whitespaceRun(from start: Int) -> WhitespaceRun {
        var position = start
        var afterLastNewline = -1
        var lastScalarStart = start
        var scalars = 0
        while position < end {
            let (flags, length) = scalar(at: position)
            if flags & UnicodeClasses.whitespace == 0 { break }
            if flags & UnicodeClasses.newline != 0 { afterLastNewline = position + length }
            lastScalarStart = position
            position += length
            scalars += 1
        }
        return WhitespaceRun(
            end: position, afterLastNewline: afterLastNewline, lastScalarStart: lastScalarStart, scalars: scalars
        )
    }
}

/// A maximal run of whitespace and the positions the whitespace alternatives can end at.
struct WhitespaceRun {
    /// Where the run ends.
    let end: Int
    /// Just after the run's last `\r` or `\n`, or -1 when it has none.
    let afterLastNewline: Int
    /// Where the run's last scalar starts.
    let lastScalarStart: Int
    /// How many scalars the run holds.
    let scalars: Int
}
