import Foundation
import GRDB
import Testing
@testable import Knowledge

/// `LexicalTokenizer` must give exactly the terms SQLite FTS5 indexes with the knowledge base's
/// tokenizer (`porter unicode61`), so each test asks FTS5 itself and compares.
@Suite("Lexical tokenizer", .timeLimit(.minutes(10)))
struct LexicalTokenizerTests {
    /// The terms FTS5 indexes for each text, in order, as bytes: one row per text in a table
    /// declared like `chunk_fts`, read back from an `fts5vocab` table of type 'instance' (one
    /// row per token: term, document, column, position).
    func fts5Terms(_ texts: [String]) throws -> [[[UInt8]]] {
        let queue = try DatabaseQueue()
        return try queue.write { db in
            try db.create(virtualTable: "passage", using: FTS5()) { table in
                table.tokenizer = .porter(wrapping: .unicode61())
                table.column("text")
            }
            try db.execute(sql: "CREATE VIRTUAL TABLE passage_terms USING fts5vocab(passage, 'instance')")
            for (index, text) in texts.enumerated() {
                try db.execute(sql: "INSERT INTO passage (rowid, text) VALUES (?, ?)", arguments: [index + 1, text])
            }
            var terms = [[[UInt8]]](repeating: [], count: texts.count)
            let rows = try Row.fetchAll(db, sql: "SELECT CAST(term AS BLOB) AS term, doc FROM passage_terms ORDER BY doc, offset")
            for row in rows {
                let document: Int = row["doc"]
                let term: Data = row["term"]
                terms[document - 1].append(Array(term))
            }
            return terms
        }
    }

    /// Our terms for a text, as bytes.
    func ourTerms(_ text: String) -> [[UInt8]] {
        var terms: [[UInt8]] = []
        LexicalTokenizer.forEachToken(in: text) { terms.append(Array($0)) }
        return terms
    }

    /// Checks every text against FTS5: the same terms, in the same order.
    func expectSameAsFTS5(_ texts: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let expected = try fts5Terms(texts)
        for (text, theirs) in zip(texts, expected) {
            let ours = ourTerms(text)
            #expect(ours == theirs, "\(text.debugDescription): ours \(ours.map(Self.show)), FTS5 \(theirs.map(Self.show))",
                    sourceLocation: sourceLocation)
            #expect(LexicalTokenizer.tokens(text) == theirs.map { String(decoding: $0, as: UTF8.self) }, sourceLocation: sourceLocation)
        }
    }

    static func show(_ term: [UInt8]) -> String { String(decoding: term, as: UTF8.self) }

    @Test func englishProse() throws {
        try expectSameAsFTS5([
            """
            The caresses of ponies: relational databases were conditionally rationalised, and their \
            hopefulness, callousness and decisiveness generalized. Operators digitized the formalities; \
            sensibilities, electrical triplicates and adjustments followed. Falling, hopping, filing, \
            controlling, agreed, plastered, motoring, sized, tanned, hissing, fizzed — happily, the sky \
            was vietnamization-free. Allowances, inferences, airliners, gyroscopic, adjustable, \
            defensible, irritant, replacement, dependent, adoption, homologous, communism, activate, \
            angularity, effective, bowdlerize. It's the user's choice: don't; can't; o'clock.
            """,
            "Generalizations, organizational, nationalization, conditionally, electricity, meaningfulness",
            "ies eed sses ss s is as us yes eyes dyed sayyed seed feed need agreed bleed",
        ])
    }

    @Test func pythonDocumentation() throws {
        try expectSameAsFTS5([
            """
            math.isclose(a, b, *, rel_tol=1e-09, abs_tol=0.0) returns True if the values a and b are \
            close to each other. New in version 3.5. Changed in version 3.12: see PEP 485.
            """,
            "@functools.lru_cache(maxsize=128, typed=False) decorates __init__ and __call__; see NormalDist.",
            "statistics.NormalDist(mu=0.0, sigma=1.0).inv_cdf(0.975) == 1.959963984540054",
            "0x1F | 0o17 ^ 0b1010 >> 2; int('0x1F', 16) == 31; 1_000_000; 3.12.0rc1; v2.7.18; 10e-3j",
            "os.path.join(\"/usr/lib/python3.12\", '__pycache__/mod.cpython-312.pyc') # TypeError: ...",
            "asyncio.TaskGroup() / ExceptionGroup / except* — PEP 654; f\"{x!r:>10}\"; @dataclass(slots=True)",
        ])
    }

    @Test func otherLanguagesAndUnicode() throws {
        try expectSameAsFTS5([
            "Généralement, les cafés à Paris ouvrent tôt ; l'œuvre naïve d'Ærøskøbing, où Noël était célébré.",
            "Die Straße führt über Äcker und Flüsse; GRÖSSE, Maßstab, Übergrößen, Öl, daß.",
            "한국어 문서는 형태소 분석 없이 공백으로 나뉩니다. 검색엔진이 ‘파이썬’을 찾았습니다!",
            "Bahasa Indonesia: pengembangan perangkat lunak, mempertimbangkan keberlanjutan, berkembang.",
            "Tiếng Việt có nhiều dấu: Nguyễn, Đặng, người, được. Ελληνικά: ἄνθρωπος, Σωκράτης, ΟΔΥΣΣΕΥΣ.",
            "Emoji: 🤖robot 😀smile 👍🏽 thumbs 🇰🇷 flag, ZWJ 👩‍💻coder; ★ ☃ ∑ ∞ € £ ¥ © ® ™ ° ± ¼ ² µ",
            "Combining: e\u{301}te\u{301}, cafe\u{301}s, n\u{303}, a\u{30A}, x\u{305}y, \u{301}start, o\u{31B}\u{323}",
            "Ligatures and widths: ﬁnance ﬂow ﬀ Ｆｕｌｌｗｉｄｔｈ ０１２３ ４５６７８９ ｶﾀｶﾅ ㈱ Ⅻ ½ ①",
            "Arabic العربية, Hebrew עִבְרִית, Hindi हिन्दी, Thai ภาษาไทย, Chinese 中文分词, Japanese 日本語のテキスト",
            "Private use \u{E000}\u{F8FF}; unassigned \u{0378}\u{0379}; tags \u{E0001}\u{E0041}; specials \u{FFFD}\u{FEFF}",
            "İstanbul ıI ǅ ǈ ǋ ẞ ß ſ K Å Ω ﬆ Ǆ",
            "Mixed丸ed a丸ed 丸ing kö丸ed",  // a stem that ends inside a character, as FTS5 leaves it
        ])
    }

    @Test func shortLongAndEmptyWords() throws {
        let sixtyFour = String(repeating: "ab", count: 29) + "ations"  // 64 bytes: stemmed
        let sixtyFive = "c" + sixtyFour  // 65 bytes: left as it is
        #expect(sixtyFour.utf8.count == 64)
        try expectSameAsFTS5([
            "", " ", "...", "!?,;:—–-_/\\|()[]{}<>\"'`~@#$%^&*+=", "\n\t\r\u{00A0}\u{2003}\u{3000}",
            "a", "I", "an", "be", "is", "as", "ed", "ing", "ies", "eed", "sses", "aed", "yed", "ying",
            sixtyFour, sixtyFour + "s", sixtyFive, sixtyFive + "s",
            String(repeating: "é", count: 31) + "ing",  // 62 + 3 bytes, folded to 34 bytes before stemming
            String(repeating: "한", count: 21) + "ing",
            String(repeating: "x", count: 40_000),  // FTS5 keeps the first 32,768 bytes
            "a" + String(repeating: "ab", count: 16_383) + "é" + "zz",  // the cut falls inside "é"
        ])
    }

    /// Deterministic pseudo-random texts mixing words, digits, punctuation and characters from
    /// many blocks, so that a change to the tables or the stemmer shows up.
    @Test func pseudoRandomTexts() throws {
        var state: UInt64 = 0x5EED
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let words = ["relational", "caresses", "hopping", "generalization", "sized", "agreed", "Café", "Straße",
                     "lru_cache", "3.12", "0x1F", "한국어", "ﬁnance", "ＡＢＣ", "Ærø", "Nguyễn", "🤖", "😀", "ἄνθρωπος"]
        let blocks: [ClosedRange<UInt32>] = [0x20...0x7E, 0xA0...0x24F, 0x300...0x36F, 0x370...0x52F, 0x1E00...0x1FFF,
                                             0x2000...0x2BFF, 0x3000...0x30FF, 0xAC00...0xD7A3, 0xFB00...0xFFFD, 0x1F300...0x1FAFF]
        var texts: [String] = []
        for _ in 0..<2000 {
            var text = ""
            for _ in 0..<(1 + next(12)) {
                if next(2) == 0 {
                    text += words[next(words.count)]
                } else {
                    let block = blocks[next(blocks.count)]
                    let value = block.lowerBound + UInt32(next(Int(block.upperBound - block.lowerBound) + 1))
                    text.unicodeScalars.append(Unicode.Scalar(value) ?? "?")
                }
                text += ["", " ", "s", "ing", "ed", "\u{301}", ".", "_"][next(8)]
            }
            texts.append(text)
        }
        try expectSameAsFTS5(texts)
    }

    @Test func porterPublishedExamples() throws {
        // From Porter's paper and the examples that accompany it.
        let examples = [
            "caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat",
            "feed": "feed", "agreed": "agre", "plastered": "plaster", "bled": "bled", "motoring": "motor", "sing": "sing",
            "conflated": "conflat", "troubled": "troubl", "sized": "size", "hopping": "hop", "tanned": "tan",
            "falling": "fall", "hissing": "hiss", "fizzed": "fizz", "failing": "fail", "filing": "file",
            "happy": "happi", "sky": "sky", "relational": "relat", "conditional": "condit", "rational": "ration",
            "valenci": "valenc", "hesitanci": "hesit", "digitizer": "digit", "conformabli": "conform",
            "radicalli": "radic", "differentli": "differ", "vileli": "vile", "analogousli": "analog",
            "vietnamization": "vietnam", "predication": "predic", "operator": "oper", "feudalism": "feudal",
            "decisiveness": "decis", "hopefulness": "hope", "callousness": "callous", "formaliti": "formal",
            "sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic", "formative": "form",
            "formalize": "formal", "electriciti": "electr", "electrical": "electr", "hopeful": "hope",
            "goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer", "airliner": "airlin",
            "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens", "irritant": "irrit",
            "replacement": "replac", "adjustment": "adjust", "dependent": "depend", "adoption": "adopt",
            "homologou": "homolog", "communism": "commun", "activate": "activ", "angulariti": "angular",
            "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler", "probate": "probat",
            "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
        ]
        for (word, stem) in examples {
            #expect(PorterStemmer.stem(word) == stem, "\(word)")
            #expect(LexicalTokenizer.tokens(word) == [stem], "\(word)")
        }
        try expectSameAsFTS5(examples.keys.sorted())
    }

    @Test func foldingAndStemmingExamples() {
        #expect(LexicalTokenizer.tokens("Généralement, les CAFÉS") == ["general", "le", "cafe"])
        #expect(LexicalTokenizer.tokens("math.isclose lru_cache __init__ NormalDist 3.12 0x1F") ==
                ["math", "isclos", "lru", "cach", "init", "normaldist", "3", "12", "0x1f"])
        #expect(LexicalTokenizer.tokens("e\u{301}te\u{301} été Ấ ﬁ ＡＢ ０１ ø ß") == ["et", "et", "ấ", "ﬁ", "ａｂ", "０１", "ø", "ß"])
        #expect(LexicalTokenizer.tokens("🤖robot 😀smile") == ["🤖robot", "smile"])
        let frequencies = LexicalTokenizer.termFrequencies("Connected connecting connection, connections!")
        #expect(frequencies.length == 4)
        #expect(frequencies.frequencies == ["connect": 4])
    }
}
