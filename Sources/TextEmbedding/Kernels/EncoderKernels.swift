import TextEmbeddingAVX2
import TextEmbeddingAVX512

/// How a linear layer's result `x · Wᵀ` lands in its output.
enum LinearOutput {
    /// Added to what the output holds (the residual stream); the bias is left to the LayerNorm.
    case accumulate
    /// Stored with the bias added.
    case addBias
    /// Stored as GELU(result + bias).
    case addBiasThenGELU
}

/// The compute-heavy steps of the encoder, implemented once per backend, for one encoder shape.
protocol EncoderKernels: Sendable {
    var shape: EncoderShape { get }
    /// A linear layer over `rows` rows of `input` for the output `columns` (bounds multiples of
    /// 32), into `output` (row stride `ldc`).
    func linear(
        _ layer: EncoderWeights.Linear, input: UnsafePointer<Float>, rows: Int, columns: Range<Int>,
        output: UnsafeMutablePointer<Float>, ldc: Int, mode: LinearOutput
    )
    /// Floats of scratch `attentionHead` needs per worker for sequences up to `length` tokens:
    /// scores, then keys.
    func attentionScratchCount(length: Int) -> Int
    /// One head of self-attention over the sequence whose Q, K, V rows start at `qkv`, writing
    /// that head's `headSize` columns of `context`. `relativeBias`, when given, is added to the
    /// raw score of query `i` and key `j` as `relativeBias[j - i]`.
    func attentionHead(
        qkv: UnsafePointer<Float>, length: Int, head: Int, relativeBias: UnsafePointer<Float>?,
        scratch: UnsafeMutablePointer<Float>, rowScales: UnsafeMutablePointer<Float>,
        context: UnsafeMutablePointer<Float>
    )
    /// LayerNorm over `rows` consecutive rows of `hidden`, each after adding `bias`.
    func addBiasAndNormalize(
        _ first: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>?,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>
    )
}

/// Any CPU: OpenBLAS (or Accelerate) products, portable SIMD for the rest.
struct BLASKernels: EncoderKernels {
    let shape: EncoderShape

    func linear(
        _ layer: EncoderWeights.Linear, input: UnsafePointer<Float>, rows: Int, columns: Range<Int>,
        output: UnsafeMutablePointer<Float>, ldc: Int, mode: LinearOutput
    ) {
        let block = output + columns.lowerBound
        // The bias is written first and the product added onto it: the BLAS would otherwise
        // spend a pass zeroing the output.
        if mode != .accumulate {
            VectorKernels.broadcastRows(layer.bias + columns.lowerBound, count: columns.count, into: block, rows: rows, stride: ldc)
        }
        BLAS.multiplyTransposed(
            m: rows, n: columns.count, k: layer.inputs,
            input, lda: layer.inputs, layer.weight + columns.lowerBound * layer.inputs, ldb: layer.inputs,
            beta: 1, block, ldc: ldc
        )
        if mode == .addBiasThenGELU {
            VectorKernels.gelu(block, rows: rows, count: columns.count, stride: ldc)
        }
    }

    func attentionScratchCount(length: Int) -> Int {
        length * length
    }

    func attentionHead(
        qkv: UnsafePointer<Float>, length: Int, head: Int, relativeBias: UnsafePointer<Float>?,
        scratch scores: UnsafeMutablePointer<Float>, rowScales: UnsafeMutablePointer<Float>,
        context: UnsafeMutablePointer<Float>
    ) {
        let width = shape.hidden, stride = 3 * width, headSize = shape.headSize
        let query = qkv + head * headSize
        BLAS.multiplyTransposed(
            m: length, n: length, k: headSize, alpha: 1,
            query, lda: stride, query + width, ldb: stride, beta: 0, scores, ldc: length
        )
        let scale = 1 / Float(headSize).squareRoot()
        for row in 0..<length {
            if let relativeBias {
                VectorKernels.accumulate(relativeBias - row, into: scores + row * length, count: length)
            }
            rowScales[row] = VectorKernels.exponentiateRow(scores + row * length, count: length, scale: scale)
        }
        let destination = context + head * headSize
        BLAS.multiply(
            m: length, n: headSize, k: length,
            scores, lda: length, query + 2 * width, ldb: stride, beta: 0, destination, ldc: width
        )
        for row in 0..<length {
            VectorKernels.scale(destination + row * width, count: headSize, by: rowScales[row])
        }
    }

    func addBiasAndNormalize(
        _ first: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>?,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>
    ) {
        let width = shape.hidden
        for row in 0..<rows {
            VectorKernels.addBiasAndNormalize(
                first + row * width, bias: bias, gamma: gamma, beta: beta,
                count: width, epsilon: shape.layerNormEpsilon
            )
        }
    }
}

/// One build of the packed kernels (TextEmbeddingAVX512's or TextEmbeddingAVX2's `PackedKernels`).
protocol PackedKernelBuild: Sendable {
    static var panelWidth: Int { get }
    static func paddedLength(_ length: Int) -> Int
    static func keyScratchCount(length: Int, headSize: Int) -> Int
    static func multiplyPacked(
        m: Int, k: Int, a: UnsafePointer<Float>, lda: Int, packed: UnsafePointer<Float>, panels: Range<Int>,
        c: UnsafeMutablePointer<Float>, ldc: Int, accumulate: Bool, bias: UnsafePointer<Float>, gelu: Bool
    )
    static func attentionHead(
        qkv: UnsafePointer<Float>, stride: Int, width: Int, length: Int, head: Int, headSize: Int, scale: Float,
        relativeBias: UnsafePointer<Float>?,
        scores: UnsafeMutablePointer<Float>, keys: UnsafeMutablePointer<Float>,
        rowScales: UnsafeMutablePointer<Float>, context: UnsafeMutablePointer<Float>, contextStride: Int
    )
    static func addBiasAndNormalize(
        _ rows: UnsafeMutablePointer<Float>, count rowCount: Int, bias: UnsafePointer<Float>?,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>, width: Int, epsilon: Float
    )
}

extension TextEmbeddingAVX512.PackedKernels: PackedKernelBuild {}
extension TextEmbeddingAVX2.PackedKernels: PackedKernelBuild {}

/// CPUs with AVX-512 or AVX2: the products on weights packed at load time, everything in the
/// widest registers the build has.
struct PackedEncoderKernels<Build: PackedKernelBuild>: EncoderKernels {
    let shape: EncoderShape

    func linear(
        _ layer: EncoderWeights.Linear, input: UnsafePointer<Float>, rows: Int, columns: Range<Int>,
        output: UnsafeMutablePointer<Float>, ldc: Int, mode: LinearOutput
    ) {
        let width = Build.panelWidth
        Build.multiplyPacked(
            m: rows, k: layer.inputs, a: input, lda: layer.inputs,
            packed: layer.packed!, panels: (columns.lowerBound / width)..<(columns.upperBound / width),
            c: output, ldc: ldc, accumulate: mode == .accumulate, bias: layer.bias, gelu: mode == .addBiasThenGELU
        )
    }

    func attentionScratchCount(length: Int) -> Int {
        length * Build.paddedLength(length) + Build.keyScratchCount(length: length, headSize: shape.headSize)
    }

    func attentionHead(
        qkv: UnsafePointer<Float>, length: Int, head: Int, relativeBias: UnsafePointer<Float>?,
        scratch: UnsafeMutablePointer<Float>, rowScales: UnsafeMutablePointer<Float>,
        context: UnsafeMutablePointer<Float>
    ) {
        let width = shape.hidden
        Build.attentionHead(
            qkv: qkv, stride: 3 * width, width: width, length: length, head: head, headSize: shape.headSize,
            scale: 1 / Float(shape.headSize).squareRoot(), relativeBias: relativeBias,
            scores: scratch, keys: scratch + length * Build.paddedLength(length),
            rowScales: rowScales, context: context, contextStride: width
        )
    }

    func addBiasAndNormalize(
        _ first: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>?,
        gamma: UnsafePointer<Float>, beta: UnsafePointer<Float>
    ) {
        Build.addBiasAndNormalize(
            first, count: rows, bias: bias, gamma: gamma, beta: beta,
            width: shape.hidden, epsilon: shape.layerNormEpsilon
        )
    }
}
