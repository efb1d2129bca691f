/// The element-wise steps of the forward pass, written on `SIMD16<Float>`.
///
/// This file is compiled twice: into TextEmbedding for any CPU, and (through a symbolic link)
/// into TextEmbeddingAVX512 with AVX-512 enabled. For the baseline x86-64 target (SSE2: no FMA,
/// no rounding instruction) it avoids `addingProduct` (a libm call per lane there), `rounded()`
/// and `pointwiseMin`/`pointwiseMax` (one scalar operation per lane).
enum VectorKernels {
    typealias Vector = SIMD16<Float>
    static let width = Vector.scalarCount

    /// `a · b + c`, fused where the target has FMA.
    @inline(__always)
    static func multiplyAdd(_ a: Vector, _ b: Vector, _ c: Vector) -> Vector {
        #if SIBYL_FMA || arch(arm64)
        return c.addingProduct(a, b)
        #else
        return a * b + c
        #endif
    }

    // MARK: LayerNorm

    /// `row = LayerNorm(row + bias) · gamma + beta` over `count` elements (a multiple of 16).
    @inline(__always)
    static func addBiasAndNormalize(
        _ row: UnsafeMutablePointer<Float>, bias: UnsafePointer<Float>?,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, count: Int, epsilon: Float
    ) {
        let vectors = count / width
        let x = UnsafeMutableRawPointer(row)
        var sum = Vector.zero
        if let bias {
            let b = UnsafeRawPointer(bias)
            for i in 0..<vectors {
                let offset = i &* 64
                let value = x.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                    + b.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                x.storeBytes(of: value, toByteOffset: offset, as: Vector.self)
                sum += value
            }
        } else {
            for i in 0..<vectors {
                sum += x.loadUnaligned(fromByteOffset: i &* 64, as: Vector.self)
            }
        }
        let mean = sum.sum() / Float(count)
        var squares = Vector.zero
        for i in 0..<vectors {
            let centered = x.loadUnaligned(fromByteOffset: i &* 64, as: Vector.self) - mean
            squares = multiplyAdd(centered, centered, squares)
        }
        let inverseDeviation = 1 / (squares.sum() / Float(count) + epsilon).squareRoot()
        let g = UnsafeRawPointer(gamma), bt = UnsafeRawPointer(beta)
        for i in 0..<vectors {
            let offset = i &* 64
            let centered = x.loadUnaligned(fromByteOffset: offset, as: Vector.self) - mean
            let value = multiplyAdd(
                centered * inverseDeviation, g.loadUnaligned(fromByteOffset: offset, as: Vector.self),
                bt.loadUnaligned(fromByteOffset: offset, as: Vector.self)
            )
            x.storeBytes(of: value, toByteOffset: offset, as: Vector.self)
        }
    }

    // MARK: Bias

    /// Sets each of `rows` rows (stride `stride`) to `bias[0..<count]`, ahead of a product that adds into them.
    @inline(__always)
    static func broadcastRows(
        _ bias: UnsafePointer<Float>, count: Int, into destination: UnsafeMutablePointer<Float>,
        rows: Int, stride: Int
    ) {
        for row in 0..<rows {
            (destination + row &* stride).update(from: bias, count: count)
        }
    }

    // MARK: GELU

    /// Exact (erf) GELU in place over a `rows` × `count` block with row stride `stride`; `count`
    /// is a multiple of 16.
    @inline(__always)
    static func gelu(_ block: UnsafeMutablePointer<Float>, rows: Int, count: Int, stride: Int) {
        let vectors = count / width
        for row in 0..<rows {
            let x = UnsafeMutableRawPointer(block + row &* stride)
            for i in 0..<vectors {
                let offset = i &* 64
                let value = x.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                x.storeBytes(of: gelu(value), toByteOffset: offset, as: Vector.self)
            }
        }
    }

    /// `0.5 · x · (1 + erf(x / √2))`.
    @inline(__always)
    static func gelu(_ x: Vector) -> Vector {
        let half = x * 0.5
        return multiplyAdd(half, erf(x * 0.707_106_77), half)
    }

    /// erf to about 4e-7 absolute error: `z · P(z²) / Q(z²)` on z clamped to [-4, 4]
    /// (erf(4) = 1 - 1.5e-8). The coefficients are a minimax fit made for this file.
    @inline(__always)
    static func erf(_ value: Vector) -> Vector {
        let z = clamp(value, -4, 4)
        let u = z * z
        var p = Vector(repeating: 1.974_650_9e-6)
        p = multiplyAdd(p, u, Vector(repeating: 2.880_591_8e-4))
        p = multiplyAdd(p, u, Vector(repeating: 4.004_526_2e-3))
        p = multiplyAdd(p, u, Vector(repeating: 5.347_022_4e-2))
        p = multiplyAdd(p, u, Vector(repeating: 1.962_697_8e-1))
        p = multiplyAdd(p, u, Vector(repeating: 1.128_379_0))
        var q = Vector(repeating: 3.747_991_7e-5)
        q = multiplyAdd(q, u, Vector(repeating: 1.216_568_7e-3))
        q = multiplyAdd(q, u, Vector(repeating: 1.544_620_0e-2))
        q = multiplyAdd(q, u, Vector(repeating: 1.164_850_2e-1))
        q = multiplyAdd(q, u, Vector(repeating: 5.072_707_2e-1))
        q = multiplyAdd(q, u, Vector(repeating: 1))
        return z * p / q
    }

    // MARK: Softmax

    /// Replaces a row of attention scores by `exp((score - max) · scale)` and returns `1 / Σ`, so
    /// that the caller can normalise the (shorter) product with the values instead of the scores.
    @inline(__always)
    static func exponentiateRow(_ row: UnsafeMutablePointer<Float>, count: Int, scale: Float = 1) -> Float {
        let vectors = count / width
        let x = UnsafeMutableRawPointer(row)
        var maximum = -Float.infinity
        if vectors > 0 {
            var maxima = x.loadUnaligned(as: Vector.self)
            for i in 1..<vectors {
                let value = x.loadUnaligned(fromByteOffset: i &* 64, as: Vector.self)
                maxima = maxima.replacing(with: value, where: value .> maxima)
            }
            maximum = maxima.max()
        }
        for i in (vectors &* width)..<count {
            maximum = max(maximum, row[i])
        }
        var sums = Vector.zero
        for i in 0..<vectors {
            let offset = i &* 64
            let value = exp((x.loadUnaligned(fromByteOffset: offset, as: Vector.self) - maximum) * scale)
            x.storeBytes(of: value, toByteOffset: offset, as: Vector.self)
            sums += value
        }
        var sum = sums.sum()
        let tail = count &- vectors &* width
        if tail > 0 {
            var lanes = Vector(repeating: -Float.infinity)
            for lane in 0..<tail { lanes[lane] = row[vectors &* width &+ lane] }
            let values = exp((lanes - maximum) * scale)
            for lane in 0..<tail {
                row[vectors &* width &+ lane] = values[lane]
                sum += values[lane]
            }
        }
        return 1 / sum
    }

    /// e^x for x ≤ 0 (softmax arguments), relative error about 2e-7; very negative inputs give 0.
    @inline(__always)
    static func exp(_ x: Vector) -> Vector {
        let clamped = x.replacing(with: -87, where: x .< -87)
        // n = round(x / ln 2) by the 1.5·2^23 trick, which also leaves n in the low mantissa bits.
        let magic: Float = 12_582_912
        let shifted = multiplyAdd(clamped, Vector(repeating: 1.442_695_04), Vector(repeating: magic))
        let n = shifted - magic
        let r = clamped - n * 0.693_145_75 - n * 1.428_606_8e-6
        var p = Vector(repeating: 1.0 / 720)
        p = multiplyAdd(p, r, Vector(repeating: 1.0 / 120))
        p = multiplyAdd(p, r, Vector(repeating: 1.0 / 24))
        p = multiplyAdd(p, r, Vector(repeating: 1.0 / 6))
        p = multiplyAdd(p, r, Vector(repeating: 0.5))
        p = multiplyAdd(p, r, Vector(repeating: 1))
        p = multiplyAdd(p, r, Vector(repeating: 1))
        let integer = unsafeBitCast(shifted, to: SIMD16<Int32>.self) &- Int32(bitPattern: magic.bitPattern)
        let scale = unsafeBitCast((integer &+ 127) &<< 23, to: Vector.self)
        let result = p * scale
        return result.replacing(with: 0, where: x .< -87)
    }

    // MARK: Pooling and biases

    /// Adds `count` elements of `source` into `destination`.
    @inline(__always)
    static func accumulate(_ source: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, count: Int) {
        let s = UnsafeRawPointer(source), d = UnsafeMutableRawPointer(destination)
        for i in 0..<(count / width) {
            let offset = i &* 64
            let sum = d.loadUnaligned(fromByteOffset: offset, as: Vector.self)
                + s.loadUnaligned(fromByteOffset: offset, as: Vector.self)
            d.storeBytes(of: sum, toByteOffset: offset, as: Vector.self)
        }
        for i in (count / width &* width)..<count { destination[i] += source[i] }
    }

    /// Multiplies `count` elements by `factor`.
    @inline(__always)
    static func scale(_ values: UnsafeMutablePointer<Float>, count: Int, by factor: Float) {
        let d = UnsafeMutableRawPointer(values)
        for i in 0..<(count / width) {
            let offset = i &* 64
            d.storeBytes(of: d.loadUnaligned(fromByteOffset: offset, as: Vector.self) * factor, toByteOffset: offset, as: Vector.self)
        }
        for i in (count / width &* width)..<count { values[i] *= factor }
    }

    /// (`pointwiseMin`/`pointwiseMax` compile to one scalar operation per lane; a masked
    /// replacement compiles to compare-and-blend.)
    @inline(__always)
    private static func clamp(_ x: Vector, _ low: Float, _ high: Float) -> Vector {
        x.replacing(with: low, where: x .< low).replacing(with: high, where: x .> high)
    }
}
