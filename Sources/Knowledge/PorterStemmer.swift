/// M. F. Porter's suffix-stripping algorithm (1980), applied the way SQLite FTS5's `porter`
/// tokenizer applies it, so that stems computed here are the terms FTS5 puts in its index.
///
/// The stemmer works on the UTF-8 bytes of one token that `unicode61` has already folded to
/// lower case. What FTS5 does, and so what this does:
/// - a token shorter than 3 bytes or longer than 64 bytes is left as it is;
/// - only the bytes `a e i o u` are vowels, and `y` is a vowel when it follows a consonant; every
///   other byte — digits, and each byte of a non-ASCII character — is a consonant, so words
///   with digits or non-ASCII letters are stemmed like any other (`"1990s"` → `"1990"`,
///   `"œuvres"` → `"œuvr"`, `"straße"` → `"straß"`);
/// - a suffix is removed only from a longer word: the whole word is never a suffix (so `"ies"`
///   becomes `"ie"`, and `"eed"` becomes `"e"`);
/// - step 2 uses Porter's later `bli → ble` and `logi → log` rules in place of `abli → able`;
/// - a double consonant in step 1b is two equal non-vowel bytes, `y` included.
///
/// Because it works on bytes, a stem can in rare cases end inside a multi-byte character (a word
/// such as `"a丸ed"`, whose character ends in two equal bytes, loses one of them); FTS5 indexes
/// those bytes as they are.
enum PorterStemmer {
    /// Tokens shorter than this many bytes are not stemmed.
    static let minimumLength = 3
    /// Tokens longer than this many bytes are not stemmed.
    static let maximumLength = 64

    /// The stem of one lower-case token (as `unicode61` folds it).
    static func stem(_ token: String) -> String {
        var bytes = Array(token.utf8)
        let count = bytes.withUnsafeMutableBufferPointer { stem($0.baseAddress!, count: $0.count) }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }

    /// Stems the `count` bytes at `word` in place and returns the stem's length. A stem is never
    /// longer than its word (an `e` is only added where `ed` or `ing` was just removed, and every
    /// replacement is at most as long as its suffix), so nothing is written past `count`.
    static func stem(_ word: UnsafeMutablePointer<UInt8>, count: Int) -> Int {
        guard count >= minimumLength, count <= maximumLength else { return count }
        var stemmer = Word(bytes: word, count: count)
        stemmer.step1a()
        stemmer.step1b()
        stemmer.step1c()
        stemmer.step2()
        stemmer.step3()
        stemmer.step4()
        stemmer.step5()
        return stemmer.count
    }
}

// MARK: - The algorithm

/// A word being stemmed: its bytes and current length.
private struct Word {
    let bytes: UnsafeMutablePointer<UInt8>
    var count: Int

    // ASCII codes of the letters the rules look at.
    private static let a = UInt8(ascii: "a"), e = UInt8(ascii: "e"), i = UInt8(ascii: "i"), o = UInt8(ascii: "o")
    private static let u = UInt8(ascii: "u"), y = UInt8(ascii: "y"), s = UInt8(ascii: "s"), t = UInt8(ascii: "t")
    private static let l = UInt8(ascii: "l"), z = UInt8(ascii: "z"), w = UInt8(ascii: "w"), x = UInt8(ascii: "x")

    private static func isPlainVowel(_ byte: UInt8) -> Bool {
        byte == a || byte == e || byte == i || byte == o || byte == u
    }

    /// The byte at `index`, or 0 before the start of the word.
    private func byte(_ index: Int) -> UInt8 { index >= 0 ? bytes[index] : 0 }

    /// Whether the byte at `index` is a consonant: not a vowel, where `y` counts as a vowel
    /// after a consonant (and as a consonant at the start of the word).
    private func isConsonant(_ index: Int) -> Bool {
        let byte = bytes[index]
        if Self.isPlainVowel(byte) { return false }
        if byte != Self.y { return true }
        return index == 0 ? true : !isConsonant(index - 1)
    }

    /// Porter's m: the number of vowel-run-then-consonant-run pairs in the first `length` bytes
    /// (a word is [C](VC)^m[V]). The same consonant rule as `isConsonant`, worked left to right.
    private func measure(_ length: Int) -> Int {
        var pairs = 0
        var previousIsConsonant = true  // so a leading consonant run adds nothing
        for index in 0..<length {
            let byte = bytes[index]
            let consonant = Self.isPlainVowel(byte) ? false : byte == Self.y && index > 0 ? !previousIsConsonant : true
            if consonant && !previousIsConsonant { pairs += 1 }
            previousIsConsonant = consonant
        }
        return pairs
    }

    /// Whether the first `length` bytes hold a vowel (Porter's *v*).
    private func hasVowel(_ length: Int) -> Bool {
        (0..<length).contains { !isConsonant($0) }
    }

    /// Whether the first `length` bytes end consonant–vowel–consonant, the last consonant not
    /// `w`, `x` or `y` (Porter's *o).
    private func endsCVC(_ length: Int) -> Bool {
        guard length >= 3 else { return false }
        let last = bytes[length - 1]
        if last == Self.w || last == Self.x || last == Self.y { return false }
        return isConsonant(length - 3) && !isConsonant(length - 2) && isConsonant(length - 1)
    }

    /// Whether the word ends with `suffix` and is longer than it.
    private func ends(with suffix: StaticString) -> Bool {
        let length = suffix.utf8CodeUnitCount
        guard count > length else { return false }
        let start = suffix.utf8Start
        // Backwards: most words differ from most suffixes in their last byte.
        for index in stride(from: length - 1, through: 0, by: -1) where bytes[count - length + index] != start[index] {
            return false
        }
        return true
    }

    /// Replaces the last `length` bytes with `replacement`.
    private mutating func replaceEnd(_ length: Int, with replacement: StaticString) {
        count -= length
        let start = replacement.utf8Start
        for index in 0..<replacement.utf8CodeUnitCount { bytes[count + index] = start[index] }
        count += replacement.utf8CodeUnitCount
    }

    /// The last (up to) eight bytes of the word packed into an integer, the last byte lowest.
    private func packedEnd() -> UInt64 {
        var packed: UInt64 = 0
        for index in max(0, count - 8)..<count { packed = packed << 8 | UInt64(bytes[index]) }
        return packed
    }

    /// The first rule whose suffix the word ends with, and the length of the stem before it.
    /// Only that rule is considered, even when its condition fails.
    private func firstMatch(in rules: RuleTable) -> (rule: SuffixRule, stemLength: Int)? {
        let end = packedEnd()
        let lastByte = UInt8(truncatingIfNeeded: end)
        for rule in rules.endingWith(lastByte) where count > rule.length && end & rule.mask == rule.packed {
            return (rule, count - rule.length)
        }
        return nil
    }

    /// Step 1a: plurals. sses → ss, ies → i, ss → ss, s → (nothing).
    mutating func step1a() {
        guard byte(count - 1) == Self.s else { return }
        if ends(with: "sses") || ends(with: "ies") {
            count -= 2
        } else if byte(count - 2) != Self.s {
            count -= 1
        }
    }

    /// Step 1b: past tenses and gerunds. (m>0) eed → ee; (*v*) ed → ; (*v*) ing → ; and after
    /// removing ed or ing: at → ate, bl → ble, iz → ize, a double consonant other than l, s, z
    /// loses one letter, and (m=1 and *o) gains an e.
    mutating func step1b() {
        if ends(with: "eed") {
            if measure(count - 3) > 0 { count -= 1 }
            return
        }
        let removed: Int
        if ends(with: "ed") && hasVowel(count - 2) {
            removed = 2
        } else if ends(with: "ing") && hasVowel(count - 3) {
            removed = 3
        } else {
            return
        }
        count -= removed
        if ends(with: "at") || ends(with: "bl") || ends(with: "iz") {
            bytes[count] = Self.e
            count += 1
        } else if count >= 2, bytes[count - 1] == bytes[count - 2], !Self.isPlainVowel(bytes[count - 1]),
                  bytes[count - 1] != Self.l, bytes[count - 1] != Self.s, bytes[count - 1] != Self.z {
            count -= 1
        } else if measure(count) == 1 && endsCVC(count) {
            bytes[count] = Self.e
            count += 1
        }
    }

    /// Step 1c: (*v*) y → i.
    mutating func step1c() {
        if byte(count - 1) == Self.y && hasVowel(count - 1) { bytes[count - 1] = Self.i }
    }

    private static let step2Rules = RuleTable([
        .init("ational", "ate"), .init("tional", "tion"), .init("enci", "ence"), .init("anci", "ance"),
        .init("izer", "ize"), .init("bli", "ble"), .init("alli", "al"), .init("entli", "ent"), .init("eli", "e"),
        .init("ousli", "ous"), .init("ization", "ize"), .init("ation", "ate"), .init("ator", "ate"),
        .init("alism", "al"), .init("iveness", "ive"), .init("fulness", "ful"), .init("ousness", "ous"),
        .init("aliti", "al"), .init("iviti", "ive"), .init("biliti", "ble"), .init("logi", "log"),
    ])

    /// Step 2: double suffixes to single ones, when m>0 before the suffix.
    mutating func step2() {
        if let match = firstMatch(in: Self.step2Rules), measure(match.stemLength) > 0 {
            replaceEnd(match.rule.length, with: match.rule.replacement)
        }
    }

    private static let step3Rules = RuleTable([
        .init("icate", "ic"), .init("ative", ""), .init("alize", "al"), .init("iciti", "ic"), .init("ical", "ic"),
        .init("ful", ""), .init("ness", ""),
    ])

    /// Step 3: -ic-, -full, -ness etc., when m>0 before the suffix.
    mutating func step3() {
        if let match = firstMatch(in: Self.step3Rules), measure(match.stemLength) > 0 {
            replaceEnd(match.rule.length, with: match.rule.replacement)
        }
    }

    private static let step4Rules = RuleTable([
        .init("al", ""), .init("ance", ""), .init("ence", ""), .init("er", ""), .init("ic", ""), .init("able", ""),
        .init("ible", ""), .init("ant", ""), .init("ement", ""), .init("ment", ""), .init("ent", ""),
        .init("ion", ""), .init("ou", ""), .init("ism", ""), .init("ate", ""), .init("iti", ""), .init("ous", ""),
        .init("ive", ""), .init("ize", ""),
    ])

    /// Step 4: remove a suffix when m>1 before it (for -ion, that stem must also end in s or t).
    mutating func step4() {
        guard let match = firstMatch(in: Self.step4Rules), measure(match.stemLength) > 1 else { return }
        if ends(with: "ion") {
            let before = bytes[match.stemLength - 1]
            guard before == Self.s || before == Self.t else { return }
        }
        count = match.stemLength
    }

    /// Step 5: (m>1) e → ; (m=1 and not *o) e → ; (m>1 and ends ll) ll → l.
    mutating func step5() {
        if byte(count - 1) == Self.e {
            let m = measure(count - 1)
            if m > 1 || (m == 1 && !endsCVC(count - 1)) { count -= 1 }
        }
        if count > 1 && bytes[count - 1] == Self.l && bytes[count - 2] == Self.l && measure(count - 1) > 1 {
            count -= 1
        }
    }
}

/// One rule of steps 2–4: when a word ends with `suffix` (and is longer than it) and the stem
/// before it satisfies the step's condition, the suffix becomes `replacement`.
private struct SuffixRule {
    /// Length of the suffix in bytes (at most 8).
    let length: Int
    /// The suffix packed like `Word.packedEnd`, and the mask that keeps that many bytes.
    let packed: UInt64
    let mask: UInt64
    let replacement: StaticString

    init(_ suffix: StaticString, _ replacement: StaticString) {
        length = suffix.utf8CodeUnitCount
        precondition(length <= 8)
        var packed: UInt64 = 0
        for index in 0..<length { packed = packed << 8 | UInt64(suffix.utf8Start[index]) }
        self.packed = packed
        mask = length == 8 ? ~0 : (1 << (8 * UInt64(length))) - 1
        self.replacement = replacement
    }
}

/// The rules of one step, grouped by the last byte of their suffix (each group in the step's
/// order), so that a word is compared only with the rules it could match.
private struct RuleTable {
    private var groups = [[SuffixRule]](repeating: [], count: 256)

    init(_ rules: [SuffixRule]) {
        for rule in rules { groups[Int(rule.packed & 0xFF)].append(rule) }
    }

    /// The rules whose suffix ends with `byte`, in order.
    func endingWith(_ byte: UInt8) -> [SuffixRule] { groups[Int(byte)] }
}
