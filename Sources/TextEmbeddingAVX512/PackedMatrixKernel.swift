/// `C += A · Wᵀ` on weights packed for the kernel, in tiles of 8 rows × 32 columns (AVX-512) or
/// 6 rows × 16 columns (AVX2).
///
/// Packed layout: panel `p` holds output features `wp ..< wp + w` (`w` = `panelWidth`, 32 or 16)
/// as `k` consecutive groups of `w` floats (group `i` = column `i` of those rows of `W`), so the
/// kernel reads each panel front to back. An AVX-512 tile keeps its 8 × 32 sums in 16 of the 32
/// registers while it walks `k`: per step two loads of the panel, eight broadcasts of `A`,
/// sixteen fused multiply-adds. AVX2 has 16 registers of 8 floats, so its panels are 16 wide and
/// a tile keeps 6 × 16 sums in 12 (two loads, six broadcasts, twelve FMAs per step). Panels as
/// wide as the tile matter: a 6 × 16 tile over 32-wide panels read every other cache line and
/// left a one-query embedding waiting on memory. Packing once at load time is what makes small
/// products (a query of a dozen tokens) fast: a BLAS must repack the weights on every call.
enum PackedMatrixKernel {
    typealias Vector = SIMD16<Float>
    #if SIBYL_AVX2
    static let panelWidth = 16
    static let tileRows = 6
    #else
    static let panelWidth = 32
    static let tileRows = 8
    #endif
    /// 16-float vectors per row of a tile.
    static let vectorsPerRow = panelWidth / 16

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

    /// `C[0..<m, panels] ⊕= A · B`, `A` m×k; panel `p` of `B` starts at `packed + p·k·w` and
    /// holds `k` rows of `w = panelWidth` floats, `weightStride` floats apart (`w` when packed,
    /// more when the "panel" is a slice of a wider matrix, as the values of one attention head are).
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
            for tileIndex in 0..<fullTiles {
                let row = tileIndex * tileRows
                tile(
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
                tile(
                    k: k, a: base, lda: k, weights: weights, weightStride: weightStride,
                    c: c + panel * panelWidth + row * ldc, ldc: ldc, rows: remainder, epilogue: epilogue, row: row, column: panel * panelWidth
                )
            }
        }
    }

    #if SIBYL_AVX2
    typealias Half = SIMD8<Float>

    @inline(__always)
    private static func multiplyAdd(_ acc: Half, _ a: Float, _ b: Half) -> Half {
        acc.addingProduct(Half(repeating: a), b)
    }

    /// One 6 × 16 tile: `C[0..<rows, 0..<16] ⊕= A[0..<6, 0..<k] · panel`.
    @inline(__always)
    private static func tile(
        k: Int, a: UnsafePointer<Float>, lda: Int, weights: UnsafeRawPointer, weightStride: Int,
        c: UnsafeMutablePointer<Float>, ldc: Int, rows: Int, epilogue: Epilogue, row: Int, column: Int
    ) {
        var c00 = Half.zero, c01 = Half.zero, c10 = Half.zero, c11 = Half.zero
        var c20 = Half.zero, c21 = Half.zero, c30 = Half.zero, c31 = Half.zero
        var c40 = Half.zero, c41 = Half.zero, c50 = Half.zero, c51 = Half.zero
        let a0 = a, a1 = a + lda, a2 = a + 2 &* lda, a3 = a + 3 &* lda, a4 = a + 4 &* lda, a5 = a + 5 &* lda
        let step = weightStride &* 4
        for index in 0..<k {
            let offset = index &* step
            let w0 = weights.loadUnaligned(fromByteOffset: offset, as: Half.self)
            let w1 = weights.loadUnaligned(fromByteOffset: offset &+ 32, as: Half.self)
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
        }
        withUnsafeTemporaryAllocation(of: Vector.self, capacity: tileRows) { sums in
            let buffer = UnsafeMutableRawPointer(sums.baseAddress!)
            buffer.storeBytes(of: c00, as: Half.self); buffer.storeBytes(of: c01, toByteOffset: 32, as: Half.self)
            buffer.storeBytes(of: c10, toByteOffset: 64, as: Half.self); buffer.storeBytes(of: c11, toByteOffset: 96, as: Half.self)
            buffer.storeBytes(of: c20, toByteOffset: 128, as: Half.self); buffer.storeBytes(of: c21, toByteOffset: 160, as: Half.self)
            buffer.storeBytes(of: c30, toByteOffset: 192, as: Half.self); buffer.storeBytes(of: c31, toByteOffset: 224, as: Half.self)
            buffer.storeBytes(of: c40, toByteOffset: 256, as: Half.self); buffer.storeBytes(of: c41, toByteOffset: 288, as: Half.self)
            buffer.storeBytes(of: c50, toByteOffset: 320, as: Half.self); buffer.storeBytes(of: c51, toByteOffset: 352, as: Half.self)
            finish(sums.baseAddress!, rows: rows, c: c, ldc: ldc, epilogue: epilogue, firstRow: row, column: column)
        }
    }
    #else
    /// One 8 × 32 tile: `C[0..<rows, 0..<32] ⊕= A[0..<8, 0..<k] · panel`.
    @inline(__always)
    private static func tile(
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
    #endif

    /// Applies the epilogue to a tile's sums (`rows` × `panelWidth`, as `vectorsPerRow` vectors per row).
    @inline(never)
    private static func finish(
        _ sums: UnsafePointer<Vector>, rows: Int, c: UnsafeMutablePointer<Float>, ldc: Int,
        epilogue: Epilogue, firstRow: Int, column: Int
    ) {
        let out = UnsafeMutableRawPointer(c)
        for row in 0..<rows {
            for part in 0..<vectorsPerRow {
                let offset = row &* ldc &* 4 &+ part &* 64
                let sum = sums[row &* vectorsPerRow &+ part]
                switch epilogue {
                case .store:
                    out.storeBytes(of: sum, toByteOffset: offset, as: Vector.self)
                case .scaleRows(let scales):
                    out.storeBytes(of: sum * scales[firstRow &+ row], toByteOffset: offset, as: Vector.self)
                case .accumulate:
                    out.storeBytes(of: out.loadUnaligned(fromByteOffset: offset, as: Vector.self) + sum, toByteOffset: offset, as: Vector.self)
                case .bias(let bias):
                    let b = UnsafeRawPointer(bias + (column &+ part &* 16)).loadUnaligned(as: Vector.self)
                    out.storeBytes(of: sum + b, toByteOffset: offset, as: Vector.self)
                case .biasGELU(let bias):
                    let b = UnsafeRawPointer(bias + (column &+ part &* 16)).loadUnaligned(as: Vector.self)
                    out.storeBytes(of: VectorKernels.gelu(sum + b), toByteOffset: offset, as: Vector.self)
                }
            }
        }
    }
}
