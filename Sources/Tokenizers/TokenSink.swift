/// Where the encoder puts tokens: collected, or only counted.
///
/// The encoder is generic over this so that counting (the common use: fitting text into a
/// context budget) is specialised to a single increment and never builds an array.
protocol TokenSink {
    mutating func append(_ token: UInt32)
}

/// Collects token ids.
struct TokenCollector: TokenSink {
    var tokens: [Int] = []

    @inline(__always)
    mutating func append(_ token: UInt32) {
        tokens.append(Int(token))
    }
}

/// Counts tokens.
struct TokenCounting: TokenSink {
    var count = 0

    @inline(__always)
    mutating func append(_ token: UInt32) {
        count += 1
    }
}
