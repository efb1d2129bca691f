import SibylCore

/// Deterministic, varied text for checking the tokenizer against tiktoken: fragments chosen to
/// hit every branch of both pre-tokenisers (each character class, contractions, whitespace runs,
/// newlines, marks, scripts whose category differs between Unicode versions), random code points
/// from all planes, and long runs that exercise the heap merge.
enum VariedText {
    /// Fragments, one or a few scalars each, from every class the patterns distinguish.
    static let fragments: [String] = [
        // ASCII letters, words, contractions in all cases, the long s that folds to "s".
        "a", "Z", "hello", "World", "NASA", "camelCase", "don't", "'s", "'S", "'t", "'re", "'RE", "'Ve", "'m",
        "'ll", "'lL", "'d", "'D", "'x", "'", "''", "\u{17F}", "'\u{17F}", "I'M", "we'Ll",
        // Digits and numbers of other kinds (Nd, Nl, No).
        "0", "7", "12345", "3.14", "1,000", "\u{663}", "\u{2167}", "\u{BD}", "\u{B2}", "\u{FF11}",
        // Punctuation and symbols, including the `/` o200k keeps after punctuation.
        ".", ",", "!", "?", "/", "//", "-", "_", "(", ")", "\"", "<", "|", ">", "<|", "|>", "#", "$", "%", "&",
        "*", "+", "=", "@", "[", "]", "{", "}", "~", "`", "^", "\\", ";", ":", "...", "\u{2014}", "\u{A9}",
        "\u{20AC}", "\u{221A}",
        // Whitespace of every kind, and runs of it.
        " ", "  ", "   ", "\t", "\n", "\r", "\r\n", "\n\n", " \n", "\n ", "\u{0B}", "\u{0C}", "\u{85}", "\u{A0}",
        "\u{1680}", "\u{2003}", "\u{2028}", "\u{2029}", "\u{202F}", "\u{205F}", "\u{3000}", "\u{200B}",
        // Letters by category: Lu, Ll, Lt, Lm, Lo, and marks Mn, Mc, Me.
        "\u{C9}", "\u{E9}", "\u{1C5}", "\u{1F88}", "\u{2B0}", "\u{3005}", "\u{4E2D}", "\u{3042}", "\u{5D0}",
        "\u{627}", "\u{E01}", "\u{AC00}", "\u{301}", "\u{308}", "\u{903}", "\u{20DD}", "\u{FE0F}",
        "e\u{301}", "\u{1100}\u{1161}", "\u{915}\u{94D}\u{937}",
        // Code points whose category differs between Unicode versions, and unassigned ones.
        "\u{295}", "\u{1C89}", "\u{1C8A}", "\u{A7CB}", "\u{A7CE}", "\u{10D4A}", "\u{16D40}", "\u{1E5D0}",
        "\u{0378}", "\u{E000}", "\u{FFFF}", "\u{10FFFF}", "\u{1D400}", "\u{1D7CE}",
        // Emoji: presentation selectors, ZWJ sequences, flags, skin tones.
        "\u{1F600}", "\u{1F680}", "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}", "\u{1F1EB}\u{1F1F7}",
        "\u{1F44D}\u{1F3FD}", "\u{2764}\u{FE0F}",
        // Controls.
        "\u{0}", "\u{1}", "\u{1B}", "\u{7F}", "\u{9F}",
        // Special-token look-alikes (encoded as text unless allowed).
        "<|endoftext|>", "<|endofprompt|>", "<|fim_prefix|>", "<|endoftext", "endoftext|>",
    ]

    /// `count` texts of 1 to `maxFragments` random fragments each.
    static func fragmentTexts(count: Int, maxFragments: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            let length = Int.random(in: 1...maxFragments, using: &generator)
            return (0..<length).map { _ in fragments.randomElement(using: &generator)! }.joined()
        }
    }

    /// `count` texts of random scalars, drawn from all planes with a bias to ASCII and the BMP.
    static func randomScalarTexts(count: Int, maxLength: Int, seed: UInt64) -> [String] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in
            var text = String.UnicodeScalarView()
            let length = Int.random(in: 1...maxLength, using: &generator)
            while text.count < length {
                let value: UInt32
                switch Int.random(in: 0..<10, using: &generator) {
                case 0..<4: value = UInt32.random(in: 0...0x7F, using: &generator)
                case 4..<8: value = UInt32.random(in: 0x80...0xFFFF, using: &generator)
                default: value = UInt32.random(in: 0x10000...0x10FFFF, using: &generator)
                }
                if let scalar = Unicode.Scalar(value) { text.append(scalar) }
            }
            return String(text)
        }
    }

    /// Long runs: pieces far past the scan merge's limit, and long whitespace and digit runs.
    static let longRuns: [String] = [
        String(repeating: "a", count: 5000),
        String(repeating: "ab", count: 700),
        String(repeating: "\u{4E2D}\u{6587}", count: 400),
        String(repeating: " ", count: 3000) + "x",
        String(repeating: "\n", count: 500) + String(repeating: " ", count: 500),
        String(repeating: "1234567890", count: 100),
        String(repeating: "!?", count: 800),
        String(repeating: "\u{1F600}", count: 300),
        "supercalifragilisticexpialidocious" + String(repeating: "x", count: 200) + "end",
        (0..<600).map { String(UnicodeScalar(UInt8(97 + ($0 * 7) % 26))) }.joined(),
        String(repeating: "e\u{301}", count: 400),
    ]

    /// Ordinary prose and code in several languages.
    static let prose: [String] = [
        "The quick brown fox jumps over the lazy dog.\nIt's 3:45 p.m., and we've got 1,234 items left!",
        "def main():\n\tprint(\"hello\")  # comment\r\n\r\n    return {'a': [1, 2, 3]}\n",
        "Größe, Straße und Übermut — naïve café résumé.",
        "Съешь же ещё этих мягких французских булок, да выпей чаю.",
        "日本語のテキストと、中文文本，以及한국어 텍스트.",
        "مرحبا بالعالم! هذا نص عربي.",
        "שלום עולם, זה טקסט בעברית.",
        "नमस्ते दुनिया, यह हिंदी पाठ है।",
        "สวัสดีชาวโลก นี่คือข้อความภาษาไทย",
        "Ελληνικά: Γειά σου Κόσμε! ΤΕΛΟΣ.",
        "URL: https://example.com/a/b?c=d&e=f#g — email: someone@example.org",
        "<html><body><p class=\"x\">Hello&nbsp;world</p></body></html>",
        "{\"key\": \"value\", \"list\": [1, 2.5, -3e10, null, true]}",
        "SELECT * FROM users WHERE id = 42 AND name LIKE '%o''brien%';",
        "x = 0x1F; y = 0b1010; z = 1_000_000; w = 3.14159e-10",
        "   leading and trailing   \n\n\n   ",
        "Tabs\tand\tnewlines\nmixed\r\nwith CRLF\r\rand lone CR",
        "MiXeD CaSe WoRdS aNd ALLCAPS and lowercase and Title Case",
        "emoji 😀😃😄 and flags 🇫🇷🇩🇪 and family 👨‍👩‍👧‍👦 done.",
        "Ǆemal ǅemal ǆemal: titlecase digraphs.",
    ]
}
