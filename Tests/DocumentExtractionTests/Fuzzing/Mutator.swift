import Foundation
import SibylCore

/// The fuzzers' generator: SplitMix64 rebuilds an input from its seed alone. The system generator
/// cannot be seeded, and a fuzz failure nobody can replay is noise. Named here for every file of
/// the suites that share this one (symbolic links), whether or not they import SibylCore.
typealias SplitMix64 = SibylCore.SplitMix64

extension SplitMix64 {
    /// A number in `0..<bound` (`bound` > 0); the slight modulo bias does not matter to a fuzzer.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// True about once in `n` draws.
    mutating func oneIn(_ n: Int) -> Bool { below(n) == 0 }
}

/// A deterministic byte mutator: it takes one input of a seed corpus and damages it the ways real
/// files and requests are damaged (bit rot, truncated downloads, pasted fragments, hostile numbers).
///
/// Input `index` of a run is made by a generator seeded from the run's seed and `index` alone, so any
/// one input can be rebuilt without replaying the ones before it.
struct Mutator {
    /// The seeds every mutated input starts from (and splices from).
    let corpus: [[UInt8]]
    /// Format-specific fragments (tags, keywords) inserted besides the generic ones.
    let dictionary: [[UInt8]]
    /// Inputs never grow past this, so duplication cannot turn a test into a memory test of the mutator.
    let maxSize: Int

    /// Bytes and words that make parsers take unusual branches: terminators, quotes, markup
    /// delimiters, PDF object keywords, and numbers that overflow 32- and 64-bit integers.
    static let interesting: [[UInt8]] = [
        [0x00], [0xFF], [0x7F], [0x80], [0xFE, 0xFF], [0xEF, 0xBB, 0xBF], [0xC3], [0xED, 0xA0, 0x80],
        Array("<".utf8), Array(">".utf8), Array("%".utf8), Array("\"".utf8), Array("'".utf8), Array("&".utf8),
        Array("\\".utf8), Array("\r\n".utf8), Array("\n".utf8), Array("\r".utf8), Array("\t".utf8),
        Array("obj".utf8), Array("endobj".utf8), Array("stream".utf8), Array("endstream".utf8),
        Array("99999999999".utf8), Array("-2147483649".utf8), Array("4294967296".utf8),
        Array("18446744073709551616".utf8), Array("-1".utf8), Array("0".utf8), Array("1e308".utf8),
        Array("NaN".utf8), Array(String(repeating: "9", count: 40).utf8),
    ]

    init(corpus: [Data], dictionary: [String] = [], rawDictionary: [[UInt8]] = [], maxSize: Int = 1 << 20) {
        precondition(!corpus.isEmpty, "a mutator needs at least one seed")
        self.corpus = corpus.map { [UInt8]($0) }
        self.dictionary = dictionary.map { Array($0.utf8) } + rawDictionary
        self.maxSize = maxSize
    }

    /// The generator for input `index` of a run: the two numbers are mixed so neighbouring
    /// indexes get unrelated streams.
    static func generator(runSeed: UInt64, index: Int) -> SplitMix64 {
        var mixer = SplitMix64(seed: runSeed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return SplitMix64(seed: mixer.next())
    }

    /// Input `index` of the run seeded with `runSeed`: a corpus seed with one to eight stacked mutations.
    func input(runSeed: UInt64, index: Int) -> Data {
        var random = Self.generator(runSeed: runSeed, index: index)
        return Data(mutate(corpus[random.below(corpus.count)], using: &random))
    }

    /// Mutates `seed`; few mutations are most likely, as near-valid inputs reach deepest into a parser.
    func mutate(_ seed: [UInt8], using random: inout SplitMix64) -> [UInt8] {
        var bytes = seed
        let rounds = 1 + min(random.below(8), random.below(8))
        for _ in 0..<rounds {
            mutateOnce(&bytes, using: &random)
            if bytes.count > maxSize { bytes.removeSubrange(maxSize...) }
        }
        return bytes
    }

    private func mutateOnce(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        // An empty input can only grow.
        guard !bytes.isEmpty else {
            bytes = token(using: &random)
            return
        }
        let position = random.below(bytes.count)
        switch random.below(11) {
        case 0: // A flipped bit: storage or transfer damage.
            bytes[position] ^= 1 << UInt8(random.below(8))
        case 1: // A byte overwritten with anything.
            bytes[position] = UInt8(truncatingIfNeeded: random.next())
        case 2, 3: // A keyword or delimiter dropped in: the cheapest way to change a parser's state.
            bytes.insert(contentsOf: token(using: &random), at: random.below(bytes.count + 1))
        case 4: // A short run of random bytes.
            let run = (0..<(1 + random.below(16))).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            bytes.insert(contentsOf: run, at: random.below(bytes.count + 1))
        case 5: // A deleted range: lost bytes, a half-copied file.
            let length = 1 + random.below(min(bytes.count - position, 64))
            bytes.removeSubrange(position..<(position + length))
        case 6: // A chunk repeated, sometimes many times: deep nesting, repeated keys, long lines.
            let length = 1 + random.below(min(bytes.count - position, 256))
            let chunk = bytes[position..<(position + length)]
            let copies = random.oneIn(8) ? 1 + random.below(200) : 1
            let target = random.below(bytes.count + 1)
            bytes.insert(contentsOf: Array(repeating: Array(chunk), count: copies).joined(), at: target)
        case 7: // Splice: the start of this input and the end of another seed.
            let other = corpus[random.below(corpus.count)]
            let cut = random.below(other.count + 1)
            bytes = Array(bytes[..<position]) + other[cut...]
        case 8: // Truncation: an interrupted download or upload.
            bytes.removeSubrange(position...)
        case 9: // A number replaced by a hostile one: lengths, offsets and counts are what parsers trust.
            replaceNumber(in: &bytes, near: position, using: &random)
        default: // Two ranges swapped: the right pieces in the wrong order.
            let length = 1 + random.below(min(bytes.count - position, 64))
            let other = random.below(bytes.count - length + 1)
            let first = Array(bytes[position..<(position + length)])
            let second = Array(bytes[other..<(other + length)])
            bytes.replaceSubrange(other..<(other + length), with: first)
            bytes.replaceSubrange(position..<(position + length), with: second)
        }
    }

    /// One fragment: generic or from this format's dictionary.
    private func token(using random: inout SplitMix64) -> [UInt8] {
        if !dictionary.isEmpty, random.oneIn(2) { return dictionary[random.below(dictionary.count)] }
        return Self.interesting[random.below(Self.interesting.count)]
    }

    /// Replaces the first run of ASCII digits at or after `position` (wrapping round) with an extreme value.
    private func replaceNumber(in bytes: inout [UInt8], near position: Int, using random: inout SplitMix64) {
        let isDigit = { (byte: UInt8) in (0x30...0x39).contains(byte) }
        guard let start = bytes[position...].firstIndex(where: isDigit) ?? bytes[..<position].firstIndex(where: isDigit) else {
            bytes[position] ^= 0x01
            return
        }
        let end = bytes[start...].firstIndex { !isDigit($0) } ?? bytes.count
        let replacements = ["0", "-1", "1", "65535", "2147483647", "2147483648", "4294967295", "99999999999", "9223372036854775807", "18446744073709551616"]
        bytes.replaceSubrange(start..<end, with: Array(replacements[random.below(replacements.count)].utf8))
    }
}
