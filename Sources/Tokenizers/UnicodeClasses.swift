/// The character classes the pre-tokenisers test, per code point, exactly as tiktoken's regex
/// engine defines them (its Unicode version, not the Swift runtime's; see `UnicodeClassData.swift`).
enum UnicodeClasses {
    /// `\p{L}`.
    static let letter: UInt8 = 1
    /// `\p{N}`.
    static let number: UInt8 = 2
    /// `\s` (the Unicode White_Space property).
    static let whitespace: UInt8 = 4
    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]`, o200k_base's "upper-case-like" letters.
    static let upperish: UInt8 = 8
    /// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]`, o200k_base's "lower-case-like" letters.
    static let lowerish: UInt8 = 16
    /// `[\r\n]`.
    static let newline: UInt8 = 32

    /// One flags byte per code point, expanded once from the generated transitions.
    static let table = FlagTable(transitions: transitions)
}

/// A flat table of flags for all 0x110000 code points (1.1 MB): one load per classification,
/// which is what the pre-tokenisers' inner loops need.
final class FlagTable: @unchecked Sendable {
    // Written only in `init`, then read-only: sharing it across threads is safe.
    let flags: UnsafeMutablePointer<UInt8>
    static let codePointCount = 0x110000

    init(transitions: [UInt32]) {
        flags = .allocate(capacity: Self.codePointCount)
        var index = 0
        while index < transitions.count {
            let start = Int(transitions[index] >> 8)
            let value = UInt8(truncatingIfNeeded: transitions[index])
            let end = index + 1 < transitions.count ? Int(transitions[index + 1] >> 8) : Self.codePointCount
            (flags + start).initialize(repeating: value, count: end - start)
            index += 1
        }
    }

    deinit {
        flags.deallocate()
    }
}
