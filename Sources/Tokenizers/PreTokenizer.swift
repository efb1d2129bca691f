/// Splits text into the pieces that byte-pair encoding then works on, one piece at a time,
/// exactly as an encoding's regular expression would under tiktoken's leftmost-first semantics.
///
/// Each conformer is a hand-written matcher for one pattern: a general regex engine is both far
/// slower and, for the possessive quantifiers and look-ahead these patterns use, not available
/// in every Swift runtime.
///
/// Both patterns try their word alternatives first and then the same ones in the same order: up
/// to three digits, punctuation with one optional leading space, whitespace. `pieceEnd` tries
/// them; a conformer supplies what its pattern has of its own.
protocol PreTokenizer {
    /// The end of the pattern's word alternatives (contractions included) at `start`, whose first
    /// scalar has the flags `first` and ends at `second`; nil when none of them matches.
    static func wordEnd(in text: UTF8Text, from start: Int, first: UInt8, second: Int) -> Int?

    /// The end of what the pattern lets follow a run of punctuation that ends at `index`.
    static func punctuationTrailEnd(in text: UTF8Text, from index: Int) -> Int

    /// Where the piece ends that starts with the whitespace `run`, whose first scalar ends at `second`.
    static func whitespaceEnd(of run: WhitespaceRun, in text: UTF8Text, second: Int) -> Int
}

extension PreTokenizer {
    /// Where the piece that starts at `start` (which is before `text.end`) ends.
    @inline(__always)
    static func pieceEnd(in text: UTF8Text, from start: Int) -> Int {
        let (first, firstLength) = text.scalar(at: start)
        let second = start + firstLength
        if let end = wordEnd(in: text, from: start, first: first, second: second) {
            return end
        }
        if first & UnicodeClasses.number != 0 {
            return text.digitsEnd(after: second)
        }
        // ` ?[^\s\p{L}\p{N}]+`: the mask is what punctuation is not.
        let notPunctuation = UnicodeClasses.whitespace | UnicodeClasses.letter | UnicodeClasses.number
        if text.byte(start) == 0x20, second < text.end, text.scalar(at: second).flags & notPunctuation == 0 {
            return punctuationTrailEnd(in: text, from: text.run(from: second, whileNot: notPunctuation))
        }
        if first & notPunctuation == 0 {
            return punctuationTrailEnd(in: text, from: text.run(from: second, whileNot: notPunctuation))
        }
        // What is left starts with whitespace.
        return whitespaceEnd(of: text.whitespaceRun(from: start), in: text, second: second)
    }
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

    /// The end of `\p{N}{1,3}` whose first digit ends at `index`: up to two more digits.
    @inline(__always)
    func digitsEnd(after index: Int) -> Int {
        var position = index
        var digits = 1
        while digits < 3, position < end {
            let (flags, length) = scalar(at: position)
            if flags & UnicodeClasses.number == 0 { break }
            position += length
            digits += 1
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
