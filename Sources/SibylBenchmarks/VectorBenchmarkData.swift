import Foundation
import SibylCore

/// The synthetic collections `sibyl-bench vectors` measures on, generated from a seed so that
/// every run (and the reference tools, which read the same files) sees the same vectors.
struct VectorBenchmarkData {
    /// How the vectors are spread.
    enum Kind: String, CaseIterable {
        /// Independent Gaussian vectors, normalised: uniform on the sphere. The hard case for
        /// HNSW: in 384 dimensions every vector is almost equally far from every other.
        case random
        /// A Gaussian mixture in a 32-dimensional latent space (200 clusters), mapped into the
        /// full dimension by a fixed random projection, plus 10 % isotropic noise, normalised:
        /// low intrinsic dimension and clusters, as sentence embeddings have.
        case clustered
    }

    var kind: Kind
    var dimension: Int
    /// `count × dimension` floats, one vector after another.
    var base: [Float]
    /// `queryCount × dimension` floats drawn from the same distribution.
    var queries: [Float]

    var count: Int { base.count / dimension }
    var queryCount: Int { queries.count / dimension }

    static func make(_ kind: Kind, count: Int, queryCount: Int, dimension: Int, seed: UInt64) -> VectorBenchmarkData {
        var random = BenchmarkRandom(seed: seed &+ (kind == .random ? 0 : 0x1000))
        switch kind {
        case .random:
            let base = gaussianUnitVectors(count, dimension: dimension, random: &random)
            let queries = gaussianUnitVectors(queryCount, dimension: dimension, random: &random)
            return VectorBenchmarkData(kind: kind, dimension: dimension, base: base, queries: queries)
        case .clustered:
            let latent = 32, clusters = 200
            let projection = (0..<(dimension * latent)).map { _ in random.gaussian() }
            let centres = (0..<(clusters * latent)).map { _ in random.gaussian() }
            func sample(_ rows: Int) -> [Float] {
                var output = [Float](repeating: 0, count: rows * dimension)
                var z = [Float](repeating: 0, count: latent)
                for row in 0..<rows {
                    let cluster = Int(random.next() % UInt64(clusters))
                    for index in 0..<latent { z[index] = centres[cluster * latent + index] + 0.6 * random.gaussian() }
                    var signal = [Float](repeating: 0, count: dimension)
                    var norm: Float = 0
                    for component in 0..<dimension {
                        var sum: Float = 0
                        for index in 0..<latent { sum += projection[component * latent + index] * z[index] }
                        signal[component] = sum
                        norm += sum * sum
                    }
                    let signalScale = 1 / norm.squareRoot(), noiseScale = 0.1 / Float(dimension).squareRoot()
                    for component in 0..<dimension {
                        signal[component] = signal[component] * signalScale + noiseScale * random.gaussian()
                    }
                    normalise(&signal)
                    output.replaceSubrange((row * dimension)..<((row + 1) * dimension), with: signal)
                }
                return output
            }
            let base = sample(count)
            return VectorBenchmarkData(kind: kind, dimension: dimension, base: base, queries: sample(queryCount))
        }
    }

    private static func gaussianUnitVectors(_ rows: Int, dimension: Int, random: inout BenchmarkRandom) -> [Float] {
        var output = [Float](repeating: 0, count: rows * dimension)
        var vector = [Float](repeating: 0, count: dimension)
        for row in 0..<rows {
            for component in 0..<dimension { vector[component] = random.gaussian() }
            normalise(&vector)
            output.replaceSubrange((row * dimension)..<((row + 1) * dimension), with: vector)
        }
        return output
    }

    private static func normalise(_ vector: inout [Float]) {
        let norm = vector.reduce(0) { $0 + $1 * $1 }.squareRoot()
        for index in vector.indices { vector[index] /= norm }
    }

    /// Writes floats as raw little-endian float32, the format the reference script reads.
    static func write(_ values: [Float], to url: URL) throws {
        try values.map { $0.bitPattern.littleEndian }.withUnsafeBytes { try Data($0).write(to: url) }
    }

    /// Writes ids as raw little-endian int64.
    static func write(_ values: [Int64], to url: URL) throws {
        try values.map(\.littleEndian).withUnsafeBytes { try Data($0).write(to: url) }
    }
}

/// SplitMix64 with Box–Muller Gaussians: fast and reproducible across platforms.
struct BenchmarkRandom {
    private var bits: SplitMix64
    private var spare: Float?

    init(seed: UInt64) { bits = SplitMix64(seed: seed) }

    mutating func next() -> UInt64 {
        bits.next()
    }

    /// A standard normal sample.
    mutating func gaussian() -> Float {
        if let value = spare {
            spare = nil
            return value
        }
        let u1 = (Double(next() >> 11) + 1) * 0x1p-53, u2 = Double(next() >> 11) * 0x1p-53
        let radius = (-2 * log(u1)).squareRoot()
        spare = Float(radius * sin(2 * .pi * u2))
        return Float(radius * cos(2 * .pi * u2))
    }
}
