/// Scratch memory for one forward pass over up to `tokenCapacity` packed tokens.
final class EncoderWorkspace: @unchecked Sendable {
    // @unchecked: used by one forward pass at a time, handed between passes through a lock.
    let tokenCapacity: Int
    let sequenceCapacity: Int
    /// Hidden states, `[tokens, hidden]`; also the residual stream, updated in place.
    let hidden: FloatBuffer
    /// Query, key and value projections side by side, `[tokens, 3 × hidden]`.
    let qkv: FloatBuffer
    /// Attention output before its projection, `[tokens, hidden]`.
    let context: FloatBuffer
    /// Feed-forward activations, `[tokens, intermediate]`.
    let intermediate: FloatBuffer
    /// Per worker: scratch for one head's attention (scores and more, as the kernels need) and
    /// its row normalisers.
    let attentionScratch: [FloatBuffer]
    let rowScales: [FloatBuffer]

    init(shape: EncoderShape, tokenCapacity: Int, sequenceCapacity: Int, workers: Int, attentionScratch: Int) {
        let hiddenSize = shape.hidden
        self.tokenCapacity = tokenCapacity
        self.sequenceCapacity = sequenceCapacity
        hidden = FloatBuffer(count: tokenCapacity * hiddenSize)
        qkv = FloatBuffer(count: tokenCapacity * 3 * hiddenSize)
        context = FloatBuffer(count: tokenCapacity * hiddenSize)
        intermediate = FloatBuffer(count: tokenCapacity * shape.intermediate)
        self.attentionScratch = (0..<workers).map { _ in FloatBuffer(count: attentionScratch) }
        rowScales = (0..<workers).map { _ in FloatBuffer(count: sequenceCapacity) }
    }
}

/// The forward pass of a sentence model (BERT or MPNet) over packed sequences, ending in mean
/// pooling and L2 normalisation.
struct SentenceEncoder<Kernels: EncoderKernels>: Sendable {
    let weights: EncoderWeights
    let kernels: Kernels

    var shape: EncoderShape { weights.shape }

    /// Encodes `batch` and writes each sequence's unit vector to
    /// `output + outputIndex × hidden`. `split` decides whether each step runs on this thread alone
    /// or is divided across threads.
    func encode(
        _ batch: PackedSequences, workspace: EncoderWorkspace, split: WorkSplitter,
        output: UnsafeMutablePointer<Float>
    ) {
        precondition(batch.tokenCount <= workspace.tokenCapacity && batch.longest <= workspace.sequenceCapacity)
        embed(batch, into: workspace.hidden.pointer, split: split)
        for layer in weights.layers {
            attentionBlock(layer, batch, workspace, split)
            feedForwardBlock(layer, batch, workspace, split)
        }
        pool(batch, hidden: workspace.hidden.pointer, output: output)
    }

    /// Word + position (+ BERT's token-type) embeddings, then LayerNorm.
    private func embed(_ batch: PackedSequences, into hidden: UnsafeMutablePointer<Float>, split: WorkSplitter) {
        let width = shape.hidden
        let vocabularySize = weights.vocabularySize
        batch.tokenIDs.withUnsafeBufferPointer { ids in
            batch.positions.withUnsafeBufferPointer { positions in
                split.run(batch.tokenCount, granularity: 8) { rows, _ in
                    for row in rows {
                        let destination = hidden + row * width
                        let id = min(max(Int(ids[row]), 0), vocabularySize - 1)
                        let position = weights.positionEmbeddings + Int(positions[row]) * width
                        for index in 0..<width {
                            destination[index] = weights.wordEmbeddings[id * width + index] + position[index]
                        }
                    }
                    kernels.addBiasAndNormalize(
                        hidden + rows.lowerBound * width, rows: rows.count, bias: nil,
                        gamma: weights.embeddingNormGamma, beta: weights.embeddingNormBeta
                    )
                }
            }
        }
    }

    /// Self-attention with its output projection, residual and LayerNorm.
    private func attentionBlock(
        _ layer: EncoderWeights.Layer, _ batch: PackedSequences, _ workspace: EncoderWorkspace,
        _ split: WorkSplitter
    ) {
        let width = shape.hidden, qkvWidth = 3 * width
        let tokens = batch.tokenCount
        let hidden = workspace.hidden.pointer, qkv = workspace.qkv.pointer, context = workspace.context.pointer

        // Q, K and V in one product.
        split.run(qkvWidth, granularity: 64) { columns, _ in
            kernels.linear(layer.qkv, input: hidden, rows: tokens, columns: columns, output: qkv, ldc: qkvWidth, mode: .addBias)
        }

        let heads = shape.heads
        split.run(batch.count * heads) { items, worker in
            let scratch = workspace.attentionScratch[worker].pointer, rowScales = workspace.rowScales[worker].pointer
            for item in items {
                let rows = batch.rows(of: item / heads), head = item % heads
                let relativeBias = weights.relativeBias.map { $0 + head * weights.relativeBiasStride + weights.relativeBiasCentre }
                kernels.attentionHead(
                    qkv: qkv + rows.lowerBound * qkvWidth, length: rows.count, head: head, relativeBias: relativeBias,
                    scratch: scratch, rowScales: rowScales, context: context + rows.lowerBound * width
                )
            }
        }

        // The projection is added straight onto the residual stream, then normalised with its bias.
        split.run(width, granularity: 64) { columns, _ in
            kernels.linear(layer.attentionOutput, input: context, rows: tokens, columns: columns, output: hidden, ldc: width, mode: .accumulate)
        }
        split.run(tokens, granularity: 8) { rows, _ in
            kernels.addBiasAndNormalize(
                hidden + rows.lowerBound * width, rows: rows.count, bias: layer.attentionOutput.bias,
                gamma: layer.attentionNormGamma, beta: layer.attentionNormBeta
            )
        }
    }

    /// Feed-forward network (hidden → intermediate, GELU, → hidden) with residual and LayerNorm.
    private func feedForwardBlock(
        _ layer: EncoderWeights.Layer, _ batch: PackedSequences, _ workspace: EncoderWorkspace,
        _ split: WorkSplitter
    ) {
        let width = shape.hidden, inner = shape.intermediate
        let tokens = batch.tokenCount
        let hidden = workspace.hidden.pointer, intermediate = workspace.intermediate.pointer
        split.run(inner, granularity: 64) { columns, _ in
            kernels.linear(
                layer.intermediate, input: hidden, rows: tokens, columns: columns,
                output: intermediate, ldc: inner, mode: .addBiasThenGELU
            )
        }
        split.run(width, granularity: 64) { columns, _ in
            kernels.linear(layer.output, input: intermediate, rows: tokens, columns: columns, output: hidden, ldc: width, mode: .accumulate)
        }
        split.run(tokens, granularity: 8) { rows, _ in
            kernels.addBiasAndNormalize(
                hidden + rows.lowerBound * width, rows: rows.count, bias: layer.output.bias,
                gamma: layer.outputNormGamma, beta: layer.outputNormBeta
            )
        }
    }

    /// Mean over each sequence's tokens, scaled to unit length.
    private func pool(_ batch: PackedSequences, hidden: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>) {
        let width = shape.hidden
        for sequence in 0..<batch.count {
            let rows = batch.rows(of: sequence)
            let destination = output + batch.outputIndices[sequence] * width
            destination.update(repeating: 0, count: width)
            for row in rows {
                VectorKernels.accumulate(hidden + row * width, into: destination, count: width)
            }
            var squares: Float = 0
            for index in 0..<width {
                squares += destination[index] * destination[index]
            }
            // The mean's 1/n cancels in the normalisation; sentence-transformers clamps the norm at 1e-12.
            let norm = squares.squareRoot()
            VectorKernels.scale(destination, count: width, by: 1 / max(norm, 1e-12 * Float(rows.count)))
        }
    }
}
