import Foundation

/// One tensor of the ggml file and where its data comes from in the CTranslate2 model.
struct WhisperTensorPlan: Sendable, Hashable {
    /// whisper.cpp's (PyTorch's) name, such as `encoder.blocks.0.attn.query.weight`.
    var name: String
    var source: CTranslate2Model.Variable
    /// Rows of the source's first dimension to take: one of a fused Q/K/V (or K/V) projection.
    var rows: Range<Int>
    /// Output shape, outermost first.
    var shape: [Int]
    var storesFloat32: Bool

    var elementCount: Int { shape.reduce(1, *) }

    /// Elements of the source, in row-major order, that make up this tensor.
    var sourceElements: Range<Int> {
        let rowSize = source.shape.dropFirst().reduce(1, *)
        return (rows.lowerBound * rowSize)..<(rows.upperBound * rowSize)
    }

    /// Bytes this tensor takes in the ggml file, header included.
    var fileSize: Int { 12 + 4 * shape.count + name.utf8.count + elementCount * (storesFloat32 ? 4 : 2) }
}

/// The CTranslate2 → whisper.cpp tensor layout.
///
/// Tensors are listed in the order of OpenAI's PyTorch `state_dict`, which is the order
/// whisper.cpp's own converter writes, so the output matches its published ggml files.
enum WhisperTensorMapping {
    /// Every tensor of the ggml file, in writing order.
    static func plan(for model: CTranslate2Model, hyperParameters hp: WhisperHyperParameters) throws -> [WhisperTensorPlan] {
        var builder = Builder(model: model)
        try builder.add("encoder.positional_embedding", from: "encoder/position_encodings/encodings", float32: true)
        for conv in ["conv1", "conv2"] {
            try builder.add("encoder.\(conv).weight", from: "encoder/\(conv)/weight")
            // whisper.cpp adds the conv bias to a [n, 1] tensor.
            try builder.add("encoder.\(conv).bias", from: "encoder/\(conv)/bias", reshape: { [$0[0], 1] }, float32: true)
        }
        for layer in 0..<hp.audioLayers {
            let source = "encoder/layer_\(layer)"
            let target = "encoder.blocks.\(layer)"
            try builder.addSelfAttention(target: target, source: source, state: hp.audioState)
            try builder.addFeedForward(target: target, source: source)
        }
        try builder.addLayerNorm("encoder.ln_post", from: "encoder/layer_norm")

        try builder.add("decoder.positional_embedding", from: "decoder/position_encodings/encodings", float32: true)
        try builder.add("decoder.token_embedding.weight", from: "decoder/embeddings/weight")
        for layer in 0..<hp.textLayers {
            let source = "decoder/layer_\(layer)"
            let target = "decoder.blocks.\(layer)"
            try builder.addSelfAttention(target: target, source: source, state: hp.textState)
            try builder.addCrossAttention(target: target, source: source, state: hp.textState)
            try builder.addFeedForward(target: target, source: source)
        }
        try builder.addLayerNorm("decoder.ln", from: "decoder/layer_norm")
        return builder.tensors
    }

    /// The bias rows that are dropped because Whisper's key projections have none.
    static func droppedKeyBiases(for model: CTranslate2Model, hyperParameters hp: WhisperHyperParameters) throws -> [(CTranslate2Model.Variable, Range<Int>)] {
        var result: [(CTranslate2Model.Variable, Range<Int>)] = []
        for layer in 0..<hp.audioLayers {
            result.append((try model.require("encoder/layer_\(layer)/self_attention/linear_0/bias"), hp.audioState..<(2 * hp.audioState)))
        }
        for layer in 0..<hp.textLayers {
            result.append((try model.require("decoder/layer_\(layer)/self_attention/linear_0/bias"), hp.textState..<(2 * hp.textState)))
            result.append((try model.require("decoder/layer_\(layer)/attention/linear_1/bias"), 0..<hp.textState))
        }
        return result
    }

    private struct Builder {
        let model: CTranslate2Model
        var tensors: [WhisperTensorPlan] = []

        init(model: CTranslate2Model) { self.model = model }

        /// Adds a tensor; without `rows` it takes the whole source. 1-D tensors are always float32.
        mutating func add(
            _ name: String, from sourceName: String, rows: Range<Int>? = nil,
            reshape: (([Int]) -> [Int])? = nil, float32: Bool = false
        ) throws {
            let source = try model.require(sourceName)
            guard !source.shape.isEmpty else { throw WhisperModelConverter.ConversionError.unexpectedShape(variable: sourceName, shape: source.shape) }
            let rows = rows ?? 0..<source.shape[0]
            guard rows.upperBound <= source.shape[0] else {
                throw WhisperModelConverter.ConversionError.unexpectedShape(variable: sourceName, shape: source.shape)
            }
            var shape = source.shape
            shape[0] = rows.count
            if let reshape { shape = reshape(shape) }
            tensors.append(WhisperTensorPlan(name: name, source: source, rows: rows, shape: shape, storesFloat32: float32 || shape.count < 2))
        }

        mutating func addLinear(_ name: String, from source: String, rows: Range<Int>? = nil, bias: Bool = true) throws {
            try add("\(name).weight", from: "\(source)/weight", rows: rows)
            if bias { try add("\(name).bias", from: "\(source)/bias", rows: rows) }
        }

        mutating func addLayerNorm(_ name: String, from source: String) throws {
            try add("\(name).weight", from: "\(source)/gamma")
            try add("\(name).bias", from: "\(source)/beta")
        }

        /// CTranslate2 fuses query, key and value into one projection of 3 × state rows.
        mutating func addSelfAttention(target: String, source: String, state: Int) throws {
            let fused = "\(source)/self_attention/linear_0"
            try expectRows(fused, 3 * state)
            try addLinear("\(target).attn.query", from: fused, rows: 0..<state)
            try addLinear("\(target).attn.key", from: fused, rows: state..<(2 * state), bias: false)
            try addLinear("\(target).attn.value", from: fused, rows: (2 * state)..<(3 * state))
            try addLinear("\(target).attn.out", from: "\(source)/self_attention/linear_1")
            try addLayerNorm("\(target).attn_ln", from: "\(source)/self_attention/layer_norm")
        }

        /// Cross-attention keeps the query apart and fuses key and value (2 × state rows).
        mutating func addCrossAttention(target: String, source: String, state: Int) throws {
            let fused = "\(source)/attention/linear_1"
            try expectRows(fused, 2 * state)
            try addLinear("\(target).cross_attn.query", from: "\(source)/attention/linear_0")
            try addLinear("\(target).cross_attn.key", from: fused, rows: 0..<state, bias: false)
            try addLinear("\(target).cross_attn.value", from: fused, rows: state..<(2 * state))
            try addLinear("\(target).cross_attn.out", from: "\(source)/attention/linear_2")
            try addLayerNorm("\(target).cross_attn_ln", from: "\(source)/attention/layer_norm")
        }

        mutating func addFeedForward(target: String, source: String) throws {
            try addLinear("\(target).mlp.0", from: "\(source)/ffn/linear_0")
            try addLinear("\(target).mlp.2", from: "\(source)/ffn/linear_1")
            try addLayerNorm("\(target).mlp_ln", from: "\(source)/ffn/layer_norm")
        }

        private func expectRows(_ linear: String, _ rows: Int) throws {
            for part in ["weight", "bias"] {
                let variable = try model.require("\(linear)/\(part)")
                guard variable.shape.first == rows else {
                    throw WhisperModelConverter.ConversionError.unexpectedShape(variable: variable.name, shape: variable.shape)
                }
            }
        }
    }
}
