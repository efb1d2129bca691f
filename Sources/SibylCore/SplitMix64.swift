/// SplitMix64 (Steele, Lea & Flood): a tiny, fast generator whose whole state is one integer, so
/// that a sequence is rebuilt from its seed alone, the same on every platform. For seeding other
/// generators and for reproducible test data and benchmarks; not for anything secret.
public struct SplitMix64: RandomNumberGenerator, Sendable, Hashable {
    /// The whole state: the seed, advanced once per number.
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
