/// The terms SQLite FTS5 indexes for a text when its table is declared with
/// `tokenize = 'porter unicode61'` (GRDB's `.porter(wrapping: .unicode61())`, default options):
/// the same terms, in the same order, as many of them. A back end that ranks with BM25 from its
/// own postings (PostgreSQL) uses this to get the same term frequencies and document lengths as
/// the SQLite knowledge base.
///
/// What `unicode61` does with its default options, reproduced here:
/// - A token is a longest run of token characters. ASCII letters and digits are token
///   characters, other ASCII characters separate tokens. Above ASCII, SQLite's own character
///   tables decide; they follow an old Unicode version, so letters, numbers and private-use
///   characters are token characters, and so are code points that were unassigned then (emoji
///   newer than those tables, such as 🤖, are token characters; older ones, such as 😀, separate);
///   punctuation, symbols, spaces, controls and most combining marks separate.
///   `separatorRanges` lists them.
/// - Twenty-five common combining diacritics (U+0300…U+0331, `diacriticMask`) never start a
///   token, but inside one they continue it and are dropped (`"e\u{301}te\u{301}"` folds to
///   `"ete"`, as precomposed `"été"` does); other combining marks separate tokens.
/// - Each character is folded on its own: to lower case, and with `remove_diacritics=1` a letter
///   carrying one diacritic loses it (`É` → `e`, `ç` → `c`, `Å` → `a`). Letters carrying two
///   (Vietnamese `ấ`, Greek `ἄ`) are only lower-cased, and letters such as `ø`, `đ`, `æ`, `ß`,
///   `œ` stay as they are; ligatures and full-width letters are not decomposed (`ﬁ`, `ａ`), and
///   neither are full-width digits. `foldRuns` lists every change.
///
/// Then `porter` stems each token: see `PorterStemmer`. Last, FTS5 keeps at most the first
/// 32,768 bytes of a term (a cut that can split a character).
public enum LexicalTokenizer {
    /// Longest term FTS5 stores, in bytes: longer tokens are cut to this length.
    static let maximumTermLength = 32768

    /// The stemmed terms of `text`, in order, as FTS5 (`porter unicode61`) indexes them; the
    /// count is the document length BM25 uses.
    public static func tokens(_ text: String) -> [String] {
        var terms: [String] = []
        forEachToken(in: text) { terms.append(String(decoding: $0, as: UTF8.self)) }
        return terms
    }

    /// How often each term occurs in `text`, and how many terms it has (BM25's |D|).
    public static func termFrequencies(_ text: String) -> (frequencies: [String: Int], length: Int) {
        var frequencies: [String: Int] = [:]
        var length = 0
        forEachToken(in: text) {
            frequencies[String(decoding: $0, as: UTF8.self), default: 0] += 1
            length += 1
        }
        return (frequencies, length)
    }

    /// Calls `body` with the UTF-8 bytes of each term of `text`, in order. The bytes are valid
    /// UTF-8 except in the rare cases where FTS5's own stemming or length cut splits a character
    /// (see `PorterStemmer`); `tokens` decodes those with replacement characters.
    static func forEachToken(in text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var text = text
        text.makeContiguousUTF8()
        _ = text.utf8.withContiguousStorageIfAvailable { scan($0, body) }
    }

    /// Splits UTF-8 text into folded tokens, stems them and hands each to `body`.
    private static func scan(_ input: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        // Folding makes a character at most one and a half times as long, stemming never makes
        // a token longer, and bytes past the longest term are not kept.
        let capacity = min(2 * input.count, maximumTermLength) + 8
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { token in
            let bytes = token.baseAddress!
            var count = 0  // bytes in the token so far (more than kept, for a token that is too long)

            func finishToken() {
                let stemmed = PorterStemmer.stem(bytes, count: min(count, maximumTermLength))
                body(UnsafeBufferPointer(start: bytes, count: stemmed))
                count = 0
            }

            var index = 0
            let end = input.count
            while index < end {
                let lead = input[index]
                if lead < 0x80 {
                    index += 1
                    let folded: UInt8
                    switch lead {
                    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): folded = lead
                    case UInt8(ascii: "A")...UInt8(ascii: "Z"): folded = lead + 32
                    default:
                        if count > 0 { finishToken() }
                        continue
                    }
                    if count < maximumTermLength { bytes[count] = folded }
                    count += 1
                    continue
                }
                // A multi-byte character (the text is valid UTF-8).
                var scalar: UInt32
                let length: Int
                if lead < 0xE0 {
                    scalar = UInt32(lead & 0x1F); length = 2
                } else if lead < 0xF0 {
                    scalar = UInt32(lead & 0x0F); length = 3
                } else {
                    scalar = UInt32(lead & 0x07); length = 4
                }
                for offset in 1..<length { scalar = scalar << 6 | UInt32(input[index + offset] & 0x3F) }
                index += length

                let entry = scalar < 0x10000 ? basicPlane[Int(scalar)] : Self.entry(for: scalar)
                if entry & (count == 0 ? startsToken : continuesToken) == 0 {
                    if count > 0 { finishToken() }
                    continue
                }
                if count < maximumTermLength {
                    count += writeUTF8(entry & 0x1F_FFFF, to: bytes + count)
                } else {
                    count += 1  // only counts: the term is cut here anyway
                }
            }
            if count > 0 { finishToken() }
        }
    }

    /// Writes a scalar's UTF-8 bytes and returns how many; nothing for 0 (a dropped diacritic).
    private static func writeUTF8(_ scalar: UInt32, to bytes: UnsafeMutablePointer<UInt8>) -> Int {
        switch scalar {
        case 0:
            return 0
        case ..<0x80:
            bytes[0] = UInt8(scalar)
            return 1
        case ..<0x800:
            bytes[0] = UInt8(0xC0 | scalar >> 6); bytes[1] = UInt8(0x80 | scalar & 0x3F)
            return 2
        case ..<0x10000:
            bytes[0] = UInt8(0xE0 | scalar >> 12); bytes[1] = UInt8(0x80 | scalar >> 6 & 0x3F)
            bytes[2] = UInt8(0x80 | scalar & 0x3F)
            return 3
        default:
            bytes[0] = UInt8(0xF0 | scalar >> 18); bytes[1] = UInt8(0x80 | scalar >> 12 & 0x3F)
            bytes[2] = UInt8(0x80 | scalar >> 6 & 0x3F); bytes[3] = UInt8(0x80 | scalar & 0x3F)
            return 4
        }
    }
}
