/// The weights of a post-LayerNorm encoder (all-MiniLM-L6-v2's BERT or all-mpnet-base-v2's
/// MPNet), read in place from the mapped safetensors file except for the few tensors rearranged
/// for speed.
struct EncoderWeights: @unchecked Sendable {
    // @unchecked: every pointer targets read-only memory kept alive by `file` or `owned`.

    /// A linear layer, `y = x · Wᵀ + b`.
    struct Linear {
        /// `[outputs, inputs]`, row-major, as PyTorch stores it.
        var weight: UnsafePointer<Float>
        var bias: UnsafePointer<Float>
        var outputs: Int
        var inputs: Int
        /// The weight rearranged into panels for the AVX-512 kernels, when those are used.
        var packed: UnsafePointer<Float>?
    }

    struct Layer {
        /// Query, key and value projections stacked into one `[3 × hidden, hidden]` layer.
        var qkv: Linear
        var attentionOutput: Linear
        var attentionNormGamma: UnsafePointer<Float>
        var attentionNormBeta: UnsafePointer<Float>
        var intermediate: Linear
        var output: Linear
        var outputNormGamma: UnsafePointer<Float>
        var outputNormBeta: UnsafePointer<Float>
    }

    let shape: EncoderShape
    let vocabularySize: Int
    let wordEmbeddings: UnsafePointer<Float>
    /// The embedding added for each index within a sequence (the position's, after the model's
    /// offset, plus BERT's token-type-0 embedding).
    let positionEmbeddings: UnsafePointer<Float>
    let embeddingNormGamma: UnsafePointer<Float>
    let embeddingNormBeta: UnsafePointer<Float>
    let layers: [Layer]
    /// MPNet: per head, the bias every layer adds to the attention score of a key `d` tokens from
    /// its query, at `relativeBias + head × relativeBiasStride + relativeBiasCentre + d`, already
    /// divided by the scores' scale (so it is added to the raw `q · k`). Nil for BERT.
    let relativeBias: UnsafePointer<Float>?
    let relativeBiasStride: Int
    let relativeBiasCentre: Int

    private let file: SafeTensorsFile
    private let owned: [FloatBuffer]

    /// Reads the weights of `model`, for sequences of up to `model.maxTokens`; `panelWidth` also
    /// packs every linear layer's weight into panels of that many output features.
    init(file: SafeTensorsFile, model: SentenceModel, panelWidth: Int? = nil) throws(MiniLMError) {
        self.file = file
        let shape = model.shape
        self.shape = shape
        let hidden = shape.hidden
        func tensor(_ name: String, _ expected: [Int]) throws(MiniLMError) -> UnsafePointer<Float> {
            let info: SafeTensorInfo
            let values: UnsafeBufferPointer<Float>
            do {
                info = try file.info(name)
                values = try file.floats(name)
            } catch {
                throw .invalidWeights(error)
            }
            guard info.shape == expected else {
                throw .unexpectedShape(tensor: name, expected: expected, found: info.shape, model: model.name)
            }
            return values.baseAddress!
        }

        let wordInfo: SafeTensorInfo
        do { wordInfo = try file.info("embeddings.word_embeddings.weight") } catch { throw .invalidWeights(error) }
        guard wordInfo.shape.count == 2, wordInfo.shape[0] > 0, wordInfo.shape[1] == hidden else {
            throw .unexpectedShape(tensor: wordInfo.name, expected: [30522, hidden], found: wordInfo.shape, model: model.name)
        }
        vocabularySize = wordInfo.shape[0]
        wordEmbeddings = try tensor(wordInfo.name, wordInfo.shape)

        var owned: [FloatBuffer] = []
        let tableRows = shape.positions + shape.positionOffset
        let position = try tensor("embeddings.position_embeddings.weight", [tableRows, hidden])
        switch model.family {
        case .bert:
            let tokenType = try tensor("embeddings.token_type_embeddings.weight", [2, hidden])
            let positionSum = FloatBuffer(count: shape.positions * hidden)
            for index in 0..<(shape.positions * hidden) {
                positionSum.pointer[index] = position[index] + tokenType[index % hidden]
            }
            owned.append(positionSum)
            positionEmbeddings = UnsafePointer(positionSum.pointer)
        case .mpnet:
            positionEmbeddings = position + shape.positionOffset * hidden
        }
        embeddingNormGamma = try tensor("embeddings.LayerNorm.weight", [hidden])
        embeddingNormBeta = try tensor("embeddings.LayerNorm.bias", [hidden])

        let names = model.family == .bert
            ? (q: "attention.self.query", k: "attention.self.key", v: "attention.self.value", o: "attention.output.dense", norm: "attention.output.LayerNorm")
            : (q: "attention.attn.q", k: "attention.attn.k", v: "attention.attn.v", o: "attention.attn.o", norm: "attention.LayerNorm")
        var layers: [Layer] = []
        for index in 0..<shape.layers {
            let prefix = "encoder.layer.\(index)."
            let qkv = FloatBuffer(count: 3 * hidden * hidden)
            let qkvBias = FloatBuffer(count: 3 * hidden)
            for (part, name) in [names.q, names.k, names.v].enumerated() {
                let weight = try tensor(prefix + name + ".weight", [hidden, hidden])
                let bias = try tensor(prefix + name + ".bias", [hidden])
                (qkv.pointer + part * hidden * hidden).update(from: weight, count: hidden * hidden)
                (qkvBias.pointer + part * hidden).update(from: bias, count: hidden)
            }
            owned.append(qkv)
            owned.append(qkvBias)
            func linear(_ name: String, outputs: Int, inputs: Int) throws(MiniLMError) -> Linear {
                Linear(
                    weight: try tensor(prefix + name + ".weight", [outputs, inputs]),
                    bias: try tensor(prefix + name + ".bias", [outputs]), outputs: outputs, inputs: inputs
                )
            }
            var layer = Layer(
                qkv: Linear(weight: UnsafePointer(qkv.pointer), bias: UnsafePointer(qkvBias.pointer), outputs: 3 * hidden, inputs: hidden),
                attentionOutput: try linear(names.o, outputs: hidden, inputs: hidden),
                attentionNormGamma: try tensor(prefix + names.norm + ".weight", [hidden]),
                attentionNormBeta: try tensor(prefix + names.norm + ".bias", [hidden]),
                intermediate: try linear("intermediate.dense", outputs: shape.intermediate, inputs: hidden),
                output: try linear("output.dense", outputs: hidden, inputs: shape.intermediate),
                outputNormGamma: try tensor(prefix + "output.LayerNorm.weight", [hidden]),
                outputNormBeta: try tensor(prefix + "output.LayerNorm.bias", [hidden])
            )
            if let panelWidth {
                for path in [\Layer.qkv, \Layer.attentionOutput, \Layer.intermediate, \Layer.output] {
                    let panels = Self.pack(layer[keyPath: path], panelWidth: panelWidth)
                    owned.append(panels)
                    layer[keyPath: path].packed = UnsafePointer(panels.pointer)
                }
            }
            layers.append(layer)
        }
        self.layers = layers

        if let buckets = shape.relativeBuckets {
            // [buckets, heads] as stored; laid out per head over every distance a sequence of
            // maxTokens can have, so a query's row of biases is one contiguous run.
            let learned = try tensor("encoder.relative_attention_bias.weight", [buckets, shape.heads])
            let centre = model.maxTokens - 1, stride = 2 * model.maxTokens - 1
            let table = FloatBuffer(count: shape.heads * stride)
            let unscale = Float(shape.headSize).squareRoot()
            for distance in -centre...centre {
                let bucket = EncoderShape.relativeBucket(distance: distance, buckets: buckets, maxDistance: shape.relativeMaxDistance)
                for head in 0..<shape.heads {
                    table.pointer[head * stride + centre + distance] = learned[bucket * shape.heads + head] * unscale
                }
            }
            owned.append(table)
            relativeBias = UnsafePointer(table.pointer)
            relativeBiasStride = stride
            relativeBiasCentre = centre
        } else {
            relativeBias = nil
            relativeBiasStride = 0
            relativeBiasCentre = 0
        }
        self.owned = owned
    }

    /// Panel `p` holds outputs `p·w ..< (p+1)·w` as `inputs` consecutive groups of `w` floats,
    /// group `i` being input `i` of those outputs (`outputs` must be a multiple of `w`).
    static func pack(_ linear: Linear, panelWidth: Int) -> FloatBuffer {
        precondition(linear.outputs % panelWidth == 0)
        let packed = FloatBuffer(count: linear.outputs * linear.inputs)
        for panel in 0..<(linear.outputs / panelWidth) {
            let destination = packed.pointer + panel * linear.inputs * panelWidth
            for column in 0..<panelWidth {
                let source = linear.weight + (panel * panelWidth + column) * linear.inputs
                for input in 0..<linear.inputs {
                    destination[input * panelWidth + column] = source[input]
                }
            }
        }
        return packed
    }
}
