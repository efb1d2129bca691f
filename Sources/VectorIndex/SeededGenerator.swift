import SibylCore

/// xoshiro256** (Blackman & Vigna), seeded through SplitMix64: a small, fast generator whose
/// whole state can be saved with an index, so that a graph grows the same way after a reload.
struct SeededGenerator: RandomNumberGenerator, Sendable, Equatable {
    private(set) var state: (UInt64, UInt64, UInt64, UInt64)

    init(seed: UInt64) {
        var mix = SplitMix64(seed: seed)
        state = (mix.next(), mix.next(), mix.next(), mix.next())
    }

    init(state: (UInt64, UInt64, UInt64, UInt64)) {
        self.state = state
    }

    mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let shifted = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= shifted
        state.3 = rotate(state.3, 45)
        return result
    }

    /// A uniform double in [0, 1).
    mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    private func rotate(_ value: UInt64, _ count: UInt64) -> UInt64 {
        (value << count) | (value >> (64 - count))
    }

    static func == (a: SeededGenerator, b: SeededGenerator) -> Bool {
        a.state == b.state
    }
}
