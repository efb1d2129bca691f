/// The forward pass's hot loops on weights packed at load time. This file is compiled into
/// TextEmbeddingAVX512 (`-mavx512f`) and, through a symbolic link, into TextEmbeddingAVX2
/// (`-mavx2 -mfma`).
///
/// Call these only after checking that the CPU and OS support the module's instructions:
/// TextEmbedding does so at run time. The module keeps no global state, so merely linking it
/// runs none of its instructions.
package enum PackedKernels {
    /// Output features per packed weight panel.
    package static let panelWidth = PackedMatrixKernel.panelWidth

    /// `A · Wᵀ` for the columns of `panels` into `C` (row stride `ldc`), with `A` m×k (row
    /// stride `lda`) and `W` packed into panels of `panelWidth` output features (see
    /// `PackedMatrixKernel`): added to `C` when `accumulate`, else stored plus `bias`, through
    /// GELU when `gelu`.
    @inline(never)
    package static func multiplyPacked(
        m: Int, k: Int, a: UnsafePointer<Float>, lda: Int,
        packed: UnsafePointer<Float>, panels: Range<Int>,
        c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool, bias: UnsafePointer<Float>, gelu: Bool
    ) {
        let epilogue: PackedMatrixKernel.Epilogue = accumulate ? .accumulate : gelu ? .biasGELU(bias) : .bias(bias)
        PackedMatrixKernel.multiply(m: m, k: k, a: a, lda: lda, packed: packed, panels: panels, c: c, ldc: ldc, epilogue: epilogue)
    }

    /// Floats of scratch `attentionHead` needs for its keys, for sequences up to `length`.
    package static func keyScratchCount(length: Int, headSize: Int) -> Int {
        paddedLength(length) * headSize
    }

    /// Row stride of the scores `attentionHead` writes, for a sequence of `length` tokens.
    package static func paddedLength(_ length: Int) -> Int {
        (length + 31) / 32 * 32
    }

    /// One head of self-attention over one sequence: `softmax((Q Kᵀ + B) · scale) V` into
    /// `context`, where `B[i][j] = relativeBias[j - i]` when a relative bias is given, else 0.
    ///
    /// `qkv` holds the sequence's rows (`stride` floats apart) with queries, keys and values
    /// `width` floats apart and this head's `headSize` (a multiple of `panelWidth`) at
    /// `head · headSize` within each. `scores` needs `length × paddedLength(length)` floats, `keys`
    /// `keyScratchCount(length:headSize:)`, `rowScales` `length`.
    @inline(never)
    package static func attentionHead(
        qkv: UnsafePointer<Float>, stride: Int, width: Int, length: Int, head: Int, headSize: Int, scale: Float,
        relativeBias: UnsafePointer<Float>?,
        scores: UnsafeMutablePointer<Float>, keys: UnsafeMutablePointer<Float>,
        rowScales: UnsafeMutablePointer<Float>, context: UnsafeMutablePointer<Float>, contextStride: Int
    ) {
        precondition(headSize % panelWidth == 0)
        let panel = panelWidth
        let padded = paddedLength(length)
        let query = qkv + head * headSize, key = query + width, value = query + 2 * width
        // Kᵀ in panels of `panel` keys (zero beyond the last): panel p, row d = dimension d of
        // keys p·panel ..< (p + 1)·panel.
        for index in 0..<(padded / panel) {
            let destination = keys + index * headSize * panel
            for column in 0..<panel {
                let token = index * panel + column
                if token < length {
                    let source = key + token * stride
                    for dimension in 0..<headSize { destination[dimension * panel + column] = source[dimension] }
                } else {
                    for dimension in 0..<headSize { destination[dimension * panel + column] = 0 }
                }
            }
        }
        PackedMatrixKernel.multiply(
            m: length, k: headSize, a: query, lda: stride, packed: keys, panels: 0..<(padded / panel),
            c: scores, ldc: padded, epilogue: .store
        )
        for row in 0..<length {
            if let relativeBias {
                VectorKernels.accumulate(relativeBias - row, into: scores + row * padded, count: length)
            }
            rowScales[row] = VectorKernels.exponentiateRow(scores + row * padded, count: length, scale: scale)
        }
        // The head's value columns, read in place as panels `stride` floats a row.
        for part in 0..<(headSize / panel) {
            PackedMatrixKernel.multiply(
                m: length, k: length, a: scores, lda: padded, packed: value + part * panel, panels: 0..<1, weightStride: stride,
                c: context + head * headSize + part * panel, ldc: contextStride, epilogue: .scaleRows(rowScales)
            )
        }
    }

    /// LayerNorm of `rows` rows of `count` elements (stride `count`), each after adding `bias`.
    @inline(never)
    package static func addBiasAndNormalize(
        _ rows: UnsafeMutablePointer<Float>, count rowCount: Int, bias: UnsafePointer<Float>?,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, width: Int, epsilon: Float
    ) {
        for row in 0..<rowCount {
            VectorKernels.addBiasAndNormalize(
                rows + row * width, bias: bias, gamma: gamma, beta: beta, count: width, epsilon: epsilon
            )
        }
    }
}
