/// o200k_base's pre-tokeniser. tiktoken's pattern, tried alternative by alternative, where
/// `X` is `[^\r\n\p{L}\p{N}]`, `U` is `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, `W` is
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` and `C` is `(?i:'s|'t|'re|'ve|'m|'ll|'d)`:
///
/// ```
/// X?U*W+C?                 a word ending in lower-case-like letters ("Hello", " world's")
/// X?U+W*C?                 a word of upper-case-like letters ("NASA")
/// \p{N}{1,3}               up to three digits
///  ?[^\s\p{L}\p{N}]+[\r\n/]*   punctuation, with one optional leading space
/// \s*[\r\n]+               whitespace up to and including its last newline
/// \s+(?!\S)                whitespace but the last scalar before a non-space
/// \s+                      a single whitespace scalar (all the previous one leaves)
/// ```
///
/// Nothing here is possessive, so a word alternative that fails with the optional `X` taken is
/// retried without it, and `U*` gives back scalars that `W+` can use (`U` and `W` overlap in
/// Lm, Lo and M).
enum O200kPreTokenizer: PreTokenizer {
    /// The two word alternatives, in the order a backtracking matcher tries them; none starts
    /// with a digit or a newline.
    @inline(__always)
    static func wordEnd(in text: UTF8Text, from start: Int, first: UInt8, second: Int) -> Int? {
        guard first & (UnicodeClasses.number | UnicodeClasses.newline) == 0 else { return nil }
        let takesPrefix = first & UnicodeClasses.letter == 0
        let isWordScalar = first & (UnicodeClasses.upperish | UnicodeClasses.lowerish) != 0
        if takesPrefix, second < text.end, let end = lowerWordEnd(in: text, from: second) {
            return end
        }
        if isWordScalar, let end = lowerWordEnd(in: text, from: start) {
            return end
        }
        if takesPrefix, second < text.end, let end = upperWordEnd(in: text, from: second) {
            return end
        }
        if isWordScalar, let end = upperWordEnd(in: text, from: start) {
            return end
        }
        return nil
    }

    /// `[\r\n/]*`.
    @inline(__always)
    static func punctuationTrailEnd(in text: UTF8Text, from index: Int) -> Int {
        var end = index
        while end < text.end {
            let byte = text.byte(end)
            guard byte == 0x0A || byte == 0x0D || byte == 0x2F else { break }
            end += 1
        }
        return end
    }

    /// `\s*[\r\n]+`, `\s+(?!\S)`, `\s+`, in that order.
    @inline(__always)
    static func whitespaceEnd(of run: WhitespaceRun, in text: UTF8Text, second: Int) -> Int {
        if run.afterLastNewline >= 0 { return run.afterLastNewline }
        if run.end == text.end { return run.end }
        if run.scalars >= 2 { return run.lastScalarStart }
        return second
    }

    /// `U*W+C?` at `index`.
    ///
    /// Greedy `U*` takes the whole run of `U`; if the scalar after it is not in `W`, it gives
    /// back scalars one at a time until the last one it gave back is in `W` (Lm, Lo or M), and
    /// `W+` then matches just that one, since the `U` scalars after it are Lu or Lt.
    @inline(__always)
    private static func lowerWordEnd(in text: UTF8Text, from index: Int) -> Int? {
        let upperish = UnicodeClasses.upperish
        let lowerish = UnicodeClasses.lowerish
        var position = index
        var afterLastShared = -1
        while position < text.end {
            let (flags, length) = text.scalar(at: position)
            if flags & upperish == 0 {
                if flags & lowerish != 0 {
                    let end = text.run(from: position + length, while: lowerish)
                    return text.contractionEnd(at: end) ?? end
                }
                break
            }
            if flags & lowerish != 0 { afterLastShared = position + length }
            position += length
        }
        guard afterLastShared >= 0 else { return nil }
        return text.contractionEnd(at: afterLastShared) ?? afterLastShared
    }

    /// `U+W*C?` at `index`.
    @inline(__always)
    private static func upperWordEnd(in text: UTF8Text, from index: Int) -> Int? {
        let upperRun = text.run(from: index, while: UnicodeClasses.upperish)
        guard upperRun > index else { return nil }
        let end = text.run(from: upperRun, while: UnicodeClasses.lowerish)
        return text.contractionEnd(at: end) ?? end
    }
}
