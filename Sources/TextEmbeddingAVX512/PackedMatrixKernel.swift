/// `C += A · Wᵀ` on weights packed for the kernel, in 8-row × 32-column tiles.
///
/// Packed layout: panel `p` holds output features `32p ..< 32p + 32` as `k` consecutive groups of
/// 32 floats (group `i` = column `i` of those 32 rows of `W`), so the kernel reads each panel
/// front to back. A tile keeps its 8 × 32 sums in 16 AVX-512 registers while it walks `k`: per
/// step two loads of the panel, eight broadcasts of `A`, sixteen fused multiply-adds. Packing
/// once at load time is what makes small products (a query of a dozen tokens) fast: a BLAS must
/// repack the weights on every call.
enum PackedMatrixKernel {
    typealias Vector = SIMD16<Float>
    static let panelWidth = 32
    static let tileRows = 8

    /// What a tile does with its sums.
    enum Epilogue {
        /// `C = sums`.
        case store
        /// `C = sums × scales[row]`.
        case scaleRows(UnsafePointer<Float>)
        /// `C += sums`.
        case accumulate
        /// `C = sums + bias[column]`.
        case bias(UnsafePointer<Float>)
        /// `C = GELU(sums + bias[column])`.
        case biasGELU(UnsafePointer<Float>)
    }

    @inline(__always)
    private static func multiplyAdd(_ acc: Vector, _ a: Float, _ b: Vector) -> Vector {
        #if SIBYL_FMA || arch(arm64)
        return acc.addingProduct(Vector(repeating: a), b)
        #else
        return acc + Vector(repeating: a) * b
        #endif
    }

    /// `C[0..<m, panels] ⊕= A · B`, `A` m×k; panel `p` of `B` starts at `packed + p·k·32` and
    /// holds `k` rows of 32 floats, `weightStride` floats apart (32 when packed, more when the
    /// "panel" is a slice of a wider matrix, as the values of one attention head are).
    static func multiply(
        m: Int, k: Int, a: UnsafePointer<Float>, lda: Int,
        packed: UnsafePointer<Float>, panels: Range<Int>, weightStride: Int = panelWidth,
        c: UnsafeMutablePointer<Float>, ldc: Int, epilogue: Epilogue
    ) {
        guard m > 0, k > 0, !panels.isEmpty else { return }
        let fullTiles = m / tileRows
        let remainder = m - fullTiles * tileRows
        for panel in panels {
            let weights = UnsafeRawPointer(packed + panel * k * panelWidth)
            let output = c + panel * panelWidth
            for tile in 0..<fullTiles {
                let row = tile * tileRows
                tile8(
                    k: k, a: a + row * lda, lda: lda, weights: weights, weightStride: weightStride,
                    c: output + row * ldc, ldc: ldc, rows: tileRows, epilogue: epilogue, row: row, column: panel * panelWidth
                )
            }
        }
        guard remainder > 0 else { return }
        // The last rows go through a zero-padded copy, so the tile code never reads past `A`.
        let row = fullTiles * tileRows
        withUnsafeTemporaryAllocation(of: Float.self, capacity: tileRows * k) { padded in
            let base = padded.baseAddress!
            base.initialize(repeating: 0, count: tileRows * k)
            for r in 0..<remainder {
                (base + r * k).update(from: a + (row + r) * lda, count: k)
            }
            for panel in panels {
                let weights = UnsafeRawPointer(packed + panel * k * panelWidth)
                tile8(
                    k: k, a: base, lda: k, weights: weights, weightStride: weightStride,
                    c: c + panel * panelWidth + row * ldc, ldc: ldc, rows: remainder, epilogue: epilogue, row: row, column: panel * panelWidth
                )
            }
        }
    }

    /// One 8 × 32 tile: `C[0..<rows, 0..<32] += A[0..<8, 0..<k] · panel`.
    @inline(__always)
    private static func tile8(
        k: Int, a: UnsafePointer<Float>, lda: Int, weights: UnsafeRawPointer, weightStride: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, rows: Int, epilogue: Epilogue, row: Int, column: Int
    ) {
        var c00 = Vector.zero, c01 = Vector.zero, c10 = Vector.zero, c11 = Vector.zero
        var c20 = Vector.zero, c21 = Vector.zero, c30 = Vector.zero, c31 = Vector.zero
        var c40 = Vector.zero, c41 = Vector.zero, c50 = Vector.zero, c51 = Vector.zero
        var c60 = Vector.zero, c61 = Vector.zero, c70 = Vector.zero, c71 = Vector.zero
        let a0 = a, a1 = a + lda, a2 = a + 2 &* lda, a3 = a + 3 &* lda
        let a4 = a + 4 &* lda, a5 = a + 5 &* lda, a6 = a + 6 &* lda, a7 = a + 7 &* lda
        let step = weightStride &* 4
        for index in 0..<k {
            let offset = index &* step
            let w0 = weights.loadUnaligned(fromByteOffset: offset, as: Vector.self)
            let w1 = weights.loadUnaligned(fromByteOffset: offset &+ 64, as: Vector.self)
            var x = a0[index]
            c00 = multiplyAdd(c00, x, w0); c01 = multiplyAdd(c01, x, w1)
            x = a1[index]
            c10 = multiplyAdd(c10, x, w0); c11 = multiplyAdd(c11, x, w1)
            x = a2[index]
            c20 = multiplyAdd(c20, x, w0); c21 = multiplyAdd(c21, x, w1)
            x = a3[index]
            c30 = multiplyAdd(c30, x, w0); c31 = multiplyAdd(c31, x, w1)
            x = a4[index]
            c40 = multiplyAdd(c40, x, w0); c41 = multiplyAdd(c41, x, w1)
            x = a5[index]
            c50 = multiplyAdd(c50, x, w0); c51 = multiplyAdd(c51, x, w1)
            x = a6[index]
            c60 = multiplyAdd(c60, x, w0); c61 = multiplyAdd(c61, x, w1)
            x = a7[index]
            c70 = multiplyAdd(c70, x, w0); c71 = multiplyAdd(c71, x, w1)
        }
        // The sums go through a small buffer to a separate epilogue: code after the loop that
        // shares its function (GELU above all) costs the loop registers.
        withUnsafeTemporaryAllocation(of: Vector.self, capacity: 2 * tileRows) { sums in
            let buffer = sums.baseAddress!
            buffer[0] = c00; buffer[1] = c01; buffer[2] = c10; buffer[3] = c11
            buffer[4] = c20; buffer[5] = c21; buffer[6] = c30; buffer[7] = c31
            buffer[8] = c40; buffer[9] = c41; buffer[10] = c50; buffer[11] = c51
            buffer[12] = c60; buffer[13] = c61; buffer[14] = c70; buffer[15] = c71
            finish(buffer, rows: rows, c: c, ldc: ldc, epilogue: epilogue, firstRow: row, column: column)
        }
    }

    /// Applies the epilogue to a tile's sums (`rows` × 32, as 2 vectors per row).
    @inline(never)
    private static func finish(
        _ sums: UnsafePointer<Vector>, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
        epilogue: Epilogue, firstRow: Int, column: Int
    ) {
        let out = UnsafeMutableRawPointer(c)
        for row in 0..<rows {
            let offset = row &* ldc &* 4
            let low = sums[2 &* row], high = sums[2 &* row &+ 1]
            switch epilogue {
            case .store:
                out.storeBytes(of: low, toByteOffset: offset, as: Vector.self)
                out.storeBytes(of: high, toByteOffset: offset &+ 64, as: Vector.self)
            case .scaleRows(let scales):
                let scale = scales[firstRow &+ row]
                out.storeBytes(of: low * scale, toByteOffset: offset, as: Vector.self)
                out.storeBytes(of: high * scale, toByteOffset: offset &+ 64, as: Vector.self)
            case .accumulate:
                out.storeBytes(of: out.loadUnaligned(fromByteOffset: offset, as: Vector.self) + low, toByteOffset: offset, as: Vector.self)
                out.storeBytes(of: out.loadUnaligned(fromByteOffset: offset &+ 64, as: Vector.self) + high, toByteOffset: offset &+ 64, as: Vector.self)
            case .bias(let bias):
                let b = UnsafeRawPointer(bias + column)
                out.storeBytes(of: low + b.loadUnaligned(as: Vector.self), toByteOffset: offset, as: Vector.self)
                out.storeBytes(of: high + b.loadUnaligned(fromByteOffset: 64, as: Vector.self), toByteOffset: offset &+ 64, as: Vector.self)
            case .biasGELU(let bias):
                let b = UnsafeRawPointer(bias + column)
                out.storeBytes(of: VectorKernels.gelu(low + b.loadUnaligned(as: Vector.self)), toByteOffset: offset, as: Vector.self)
                out.storeBytes(of: VectorKernels.gelu(high + b.loadUnaligned(fromByteOffset: 64, as: Vector.self)), toByteOffset: offset &+ 64, as: Vector.self)
            }
        }
    }
}
