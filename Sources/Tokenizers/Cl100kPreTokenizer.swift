/// cl100k_base's pre-tokeniser. tiktoken's pattern, tried alternative by alternative:
///
/// ```
/// '(?i:[sdmt]|ll|ve|re)            contractions
/// [^\r\n\p{L}\p{N}]?+\p{L}++       a word, with at most one leading non-letter (" word", "'word")
/// \p{N}{1,3}+                      up to three digits
///  ?[^\s\p{L}\p{N}]++[\r\n]*+      punctuation, with one optional leading space and trailing newlines
/// \s++$                            whitespace that runs to the end of the text
/// \s*[\r\n]                        whitespace up to and including its last newline
/// \s+(?!\S)                        whitespace but the last scalar before a non-space
/// \s                               a single whitespace scalar
/// ```
enum Cl100kPreTokenizer: PreTokenizer {
    /// Contractions, then a word with at most one leading non-letter.
    @inline(__always)
    static func wordEnd(in text: UTF8Text, from start: Int, first: UInt8, second: Int) -> Int? {
        let letter = UnicodeClasses.letter
        if let end = text.contractionEnd(at: start) {
            return end
        }
        if first & letter != 0 {
            return text.run(from: second, while: letter)
        }
        // The possessive `?+` keeps a leading non-letter once taken, so it needs a letter next.
        if first & (UnicodeClasses.number | UnicodeClasses.newline) == 0, second < text.end {
            let (next, nextLength) = text.scalar(at: second)
            if next & letter != 0 {
                return text.run(from: second + nextLength, while: letter)
            }
        }
        return nil
    }

    /// `[\r\n]*+`.
    @inline(__always)
    static func punctuationTrailEnd(in text: UTF8Text, from index: Int) -> Int {
        text.run(from: index, while: UnicodeClasses.newline)
    }

    /// `\s++$`, `\s*[\r\n]`, `\s+(?!\S)`, `\s`, in that order.
    @inline(__always)
    static func whitespaceEnd(of run: WhitespaceRun, in text: UTF8Text, second: Int) -> Int {
        if run.end == text.end { return run.end }
        if run.afterLastNewline >= 0 { return run.afterLastNewline }
        if run.scalars >= 2 { return run.lastScalarStart }
        return second
    }
}
