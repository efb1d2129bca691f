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
    @inline(__always)
    static func pieceEnd(in text: UTF8Text, from start: Int) -> Int {
        let letter = UnicodeClasses.letter
        let number = UnicodeClasses.number
        let whitespace = UnicodeClasses.whitespace
        let newline = UnicodeClasses.newline

        if let end = text.contractionEnd(at: start) {
            return end
        }
        let (first, firstLength) = text.scalar(at: start)
        if first & letter != 0 {
            return text.run(from: start + firstLength, while: letter)
        }
        let second = start + firstLength
        // The possessive `?+` keeps a leading non-letter once taken, so it needs a letter next.
        if first & (number | newline) == 0, second < text.end {
            let (next, nextLength) = text.scalar(at: second)
            if next & letter != 0 {
                return text.run(from: second + nextLength, while: letter)
            }
        }
        if first & number != 0 {
            var end = second
            var digits = 1
            while digits < 3, end < text.end {
                let (next, nextLength) = text.scalar(at: end)
                if next & number == 0 { break }
                end += nextLength
                digits += 1
            }
            return end
        }
        let punctuationMask = whitespace | letter | number
        if text.byte(start) == 0x20, second < text.end, text.scalar(at: second).flags & punctuationMask == 0 {
            let end = text.run(from: second, whileNot: punctuationMask)
            return text.run(from: end, while: newline)
        }
        if first & punctuationMask == 0 {
            let end = text.run(from: second, whileNot: punctuationMask)
            return text.run(from: end, while: newline)
        }
        // What is left starts with whitespace.
        let run = text.whitespaceRun(from: start)
        if run.end == text.end { return run.end }
        if run.afterLastNewline >= 0 { return run.afterLastNewline }
        if run.scalars >= 2 { return run.lastScalarStart }
        return second
    }
}
