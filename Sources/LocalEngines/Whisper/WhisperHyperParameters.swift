import Foundation

/// The dimensions of a Whisper model, in the order whisper.cpp's ggml header stores them.
public struct WhisperHyperParameters: Sendable, Hashable {
    /// Tokens the decoder can emit (51,865 for multilingual models).
    public var vocabularySize: Int
    /// Encoder positions (1,500: 30 s of audio).
    public var audioContext: Int
    /// Encoder width.
    public var audioState: Int
    /// Encoder attention heads.
    public var audioHeads: Int
    /// Encoder blocks.
    public var audioLayers: Int
    /// Decoder positions (448 tokens).
    public var textContext: Int
    /// Decoder width.
    public var textState: Int
    /// Decoder attention heads.
    public var textHeads: Int
    /// Decoder blocks.
    public var textLayers: Int
    /// Mel bands of the input spectrogram (80, or 128 for large-v3).
    public var melBands: Int

    /// Sets every dimension.
    public init(
        vocabularySize: Int, audioContext: Int, audioState: Int, audioHeads: Int, audioLayers: Int,
        textContext: Int, textState: Int, textHeads: Int, textLayers: Int, melBands: Int
    ) {
        self.vocabularySize = vocabularySize
        self.audioContext = audioContext
        self.audioState = audioState
        self.audioHeads = audioHeads
        self.audioLayers = audioLayers
        self.textContext = textContext
        self.textState = textState
        self.textHeads = textHeads
        self.textLayers = textLayers
        self.melBands = melBands
    }

    /// Reads the dimensions from a CTranslate2 Whisper model's shapes and head-count scalars.
    public init(model: CTranslate2Model) throws {
        let embeddings = try model.require("decoder/embeddings/weight")
        let audioPositions = try model.require("encoder/position_encodings/encodings")
        let textPositions = try model.require("decoder/position_encodings/encodings")
        let conv1 = try model.require("encoder/conv1/weight")
        guard embeddings.shape.count == 2, audioPositions.shape.count == 2, textPositions.shape.count == 2, conv1.shape.count == 3 else {
            throw WhisperModelConverter.ConversionError.notWhisper("unexpected embedding or convolution ranks")
        }
        let audioState = audioPositions.shape[1]
        let textState = embeddings.shape[1]
        // Every released Whisper size uses 64-dimensional heads; the scalars win when present.
        let audioHeads = try model.integer("encoder/num_heads") ?? audioState / 64
        let textHeads = try model.integer("decoder/num_heads") ?? textState / 64
        self.init(
            vocabularySize: embeddings.shape[0],
            audioContext: audioPositions.shape[0],
            audioState: audioState,
            audioHeads: audioHeads,
            audioLayers: Self.layerCount(in: model, prefix: "encoder"),
            textContext: textPositions.shape[0],
            textState: textState,
            textHeads: textHeads,
            textLayers: Self.layerCount(in: model, prefix: "decoder"),
            melBands: conv1.shape[1]
        )
        guard audioLayers > 0, textLayers > 0 else {
            throw WhisperModelConverter.ConversionError.notWhisper("no encoder or decoder layers")
        }
    }

    /// The eleven int32 header values, ending with ftype 1 (mostly float16).
    var headerValues: [Int32] {
        [vocabularySize, audioContext, audioState, audioHeads, audioLayers, textContext, textState, textHeads, textLayers, melBands, 1]
            .map { Int32($0) }
    }

    private static func layerCount(in model: CTranslate2Model, prefix: String) -> Int {
        var count = 0
        while model.variable("\(prefix)/layer_\(count)/self_attention/linear_0/weight") != nil { count += 1 }
        return count
    }
}
