/// The weights of all-MiniLM-L6-v2 (a 6-layer, 384-wide, post-LayerNorm BERT encoder), read in
/// place from the mapped safetensors file except for the few tensors rearranged for speed.
struct MiniLMWeights: @unchecked Sendable {
    // @unchecked: every pointer targets read-only memory kept alive by `file` or `owned`.
    static let hidden = 384
    static let heads = 12
    static let headSize = 32
    static let intermediate = 1536
    static let layerCount = 6
    static let positions = 512
    static let layerNormEpsilon: Float = 1e-12

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
        /// Query, key and value projections stacked into one `[1152, 384]` layer.
        var qkv: Linear
        var attentionOutput: Linear
        var attentionNormGamma: UnsafePointer<Float>
        var attentionNormBeta: UnsafePointer<Float>
        var intermediate: Linear
        var output: Linear
        var outputNormGamma: UnsafePointer<Float>
        var outputNormBeta: UnsafePointer<Float>
    }

    let vocabularySize: Int
    let wordEmbeddings: UnsafePointer<Float>
    /// Position embedding plus the (only used) token-type-0 embedding, per position.
    let positionEmbeddings: UnsafePointer<Float>
    let embeddingNormGamma: UnsafePointer<Float>
    let embeddingNormBeta: UnsafePointer<Float>
    let layers: [Layer]

    private let file: SafeTensorsFile
    private let owned: [FloatBuffer]

    /// Reads the weights; `panelWidth` also packs every linear layer's weight into panels of
    /// that many output features.
    init(file: SafeTensorsFile, panelWidth: Int? = nil) throws(MiniLMError) {
        self.file = file
        let hidden = Self.hidden
        func tensor(_ name: String, _ shape: [Int]) throws(MiniLMError) -> UnsafePointer<Float> {
            let info: SafeTensorInfo
            let values: UnsafeBufferPointer<Float>
            do {
                info = try file.info(name)
                values = try file.floats(name)
            } catch {
                throw .invalidWeights(error)
            }
            guard info.shape == shape else {
                throw .unexpectedShape(tensor: name, expected: shape, found: info.shape)
            }
            return values.baseAddress!
        }

        let wordInfo: SafeTensorInfo
        do { wordInfo = try file.info("embeddings.word_embeddings.weight") } catch { throw .invalidWeights(error) }
        guard wordInfo.shape.count == 2, wordInfo.shape[0] > 0, wordInfo.shape[1] == hidden else {
            throw .unexpectedShape(tensor: wordInfo.name, expected: [30522, hidden], found: wordInfo.shape)
        }
        vocabularySize = wordInfo.shape[0]
        wordEmbeddings = try tensor(wordInfo.name, wordInfo.shape)

        var owned: [FloatBuffer] = []
        let position = try tensor("embeddings.position_embeddings.weight", [Self.positions, hidden])
        let tokenType = try tensor("embeddings.token_type_embeddings.weight", [2, hidden])
        let positionSum = FloatBuffer(count: Self.positions * hidden)
        for index in 0..<(Self.positions * hidden) {
            positionSum.pointer[index] = position[index] + tokenType[index % hidden]
        }
        owned.append(positionSum)
        positionEmbeddings = UnsafePointer(positionSum.pointer)
        embeddingNormGamma = try tensor("embeddings.LayerNorm.weight", [hidden])
        embeddingNormBeta = try tensor("embeddings.LayerNorm.bias", [hidden])

        var layers: [Layer] = []
        for index in 0..<Self.layerCount {
            let prefix = "encoder.layer.\(index)."
            let qkv = FloatBuffer(count: 3 * hidden * hidden)
            let qkvBias = FloatBuffer(count: 3 * hidden)
            for (part, name) in ["query", "key", "value"].enumerated() {
                let weight = try tensor(prefix + "attention.self.\(name).weight", [hidden, hidden])
                let bias = try tensor(prefix + "attention.self.\(name).bias", [hidden])
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
                attentionOutput: try linear("attention.output.dense", outputs: hidden, inputs: hidden),
                attentionNormGamma: try tensor(prefix + "attention.output.LayerNorm.weight", [hidden]),
                attentionNormBeta: try tensor(prefix + "attention.output.LayerNorm.bias", [hidden]),
                intermediate: try linear("intermediate.dense", outputs: Self.intermediate, inputs: hidden),
                output: try linear("output.dense", outputs: hidden, inputs: Self.intermediate),
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
