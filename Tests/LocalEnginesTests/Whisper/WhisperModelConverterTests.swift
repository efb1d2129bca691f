import Foundation
import Testing
@testable import LocalEngines

@Suite("CTranslate2 → ggml conversion (synthetic model)", .timeLimit(.minutes(10)))
struct WhisperModelConverterTests {
    typealias Synthetic = SyntheticWhisperModel

    /// Converts the synthetic model and reads the result back.
    static func convert(_ model: SyntheticWhisperModel = SyntheticWhisperModel(), in directory: TemporaryDirectory) throws -> (GGMLWhisperFile, URL, [Double]) {
        let inputs = try model.write(to: directory.url)
        let output = directory.file("out/ggml-test.bin")
        var fractions: [Double] = []
        try WhisperModelConverter.convert(
            ctranslate2Model: inputs.model, melFilters: inputs.mel, tokenizer: inputs.tokenizer, output: output
        ) { fractions.append($0) }
        return (try GGMLWhisperFile(contentsOf: output), output, fractions)
    }

    static func block(_ prefix: String, cross: Bool) -> [String] {
        var names = ["attn.query.weight", "attn.query.bias", "attn.key.weight", "attn.value.weight", "attn.value.bias",
                     "attn.out.weight", "attn.out.bias", "attn_ln.weight", "attn_ln.bias"]
        if cross {
            names += ["cross_attn.query.weight", "cross_attn.query.bias", "cross_attn.key.weight", "cross_attn.value.weight",
                      "cross_attn.value.bias", "cross_attn.out.weight", "cross_attn.out.bias", "cross_attn_ln.weight", "cross_attn_ln.bias"]
        }
        names += ["mlp.0.weight", "mlp.0.bias", "mlp.2.weight", "mlp.2.bias", "mlp_ln.weight", "mlp_ln.bias"]
        return names.map { "\(prefix).\($0)" }
    }

    @Test("Header: magic, hyper-parameters, mel filters and tokens")
    func header() throws {
        let directory = try TemporaryDirectory()
        let (file, _, _) = try Self.convert(in: directory)
        #expect(file.magic == 0x6767_6D6C)
        // n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state, n_text_head, n_text_layer, n_mels, ftype
        #expect(file.hyperParameters == [6, 3, 4, 2, 2, 2, 4, 2, 1, 2, 1])
        #expect(file.melRows == Synthetic.mels)
        #expect(file.melColumns == Synthetic.melColumns)
        #expect(file.mel == Synthetic.melFilters)
        #expect(file.tokens == Synthetic.tokens)
    }

    @Test("Tensors are named as whisper.cpp expects, in PyTorch state_dict order")
    func names() throws {
        let directory = try TemporaryDirectory()
        let (file, _, _) = try Self.convert(in: directory)
        let expected = ["encoder.positional_embedding", "encoder.conv1.weight", "encoder.conv1.bias", "encoder.conv2.weight", "encoder.conv2.bias"]
            + Self.block("encoder.blocks.0", cross: false) + Self.block("encoder.blocks.1", cross: false)
            + ["encoder.ln_post.weight", "encoder.ln_post.bias", "decoder.positional_embedding", "decoder.token_embedding.weight"]
            + Self.block("decoder.blocks.0", cross: true)
            + ["decoder.ln.weight", "decoder.ln.bias"]
        #expect(file.tensors.map(\.name) == expected)
    }

    @Test("Dimensions are reversed; 1-D tensors, conv biases and positional embeddings are float32")
    func shapesAndTypes() throws {
        let directory = try TemporaryDirectory()
        let (file, _, _) = try Self.convert(in: directory)
        let conv1 = try #require(file["encoder.conv1.weight"])
        #expect(conv1.dims == [3, 2, 4])
        #expect(conv1.type == 1)
        let convBias = try #require(file["encoder.conv2.bias"])
        #expect(convBias.dims == [1, 4])
        #expect(convBias.type == 0)
        let positions = try #require(file["encoder.positional_embedding"])
        #expect(positions.dims == [4, 3])
        #expect(positions.type == 0)
        #expect(file["decoder.positional_embedding"]?.type == 0)
        let embedding = try #require(file["decoder.token_embedding.weight"])
        #expect(embedding.dims == [4, 6])
        #expect(embedding.type == 1)
        for tensor in file.tensors {
            if tensor.dims.count == 1 { #expect(tensor.type == 0, "\(tensor.name)") }
            if tensor.name.hasSuffix("mlp.0.weight") { #expect(tensor.dims == [4, 8]) }
            if tensor.name.hasSuffix("mlp.2.weight") { #expect(tensor.dims == [8, 4]) }
        }
    }

    @Test("Fused query/key/value rows are split and the zero key biases dropped")
    func fusedSplit() throws {
        let directory = try TemporaryDirectory()
        let model = SyntheticWhisperModel()
        let (file, _, _) = try Self.convert(model, in: directory)
        let n = Synthetic.state
        for prefix in ["encoder/layer_1", "decoder/layer_0"] {
            let target = prefix.replacingOccurrences(of: "/layer_", with: ".blocks.")
            let weight = try #require(model.values["\(prefix)/self_attention/linear_0/weight"])
            let bias = try #require(model.values["\(prefix)/self_attention/linear_0/bias"])
            for (index, part) in ["query", "key", "value"].enumerated() {
                let tensor = try #require(file["\(target).attn.\(part).weight"])
                #expect(tensor.dims == [n, n])
                #expect(tensor.float16Bits.map(HalfFloat.float(fromBits:)) == Array(weight[(index * n * n)..<((index + 1) * n * n)]))
            }
            #expect(file["\(target).attn.query.bias"]?.float32Values == Array(bias[0..<n]))
            #expect(file["\(target).attn.value.bias"]?.float32Values == Array(bias[(2 * n)..<(3 * n)]))
            #expect(file["\(target).attn.key.bias"] == nil)
        }
        let kv = try #require(model.values["decoder/layer_0/attention/linear_1/weight"])
        let kvBias = try #require(model.values["decoder/layer_0/attention/linear_1/bias"])
        #expect(file["decoder.blocks.0.cross_attn.key.weight"]?.float16Bits.map(HalfFloat.float(fromBits:)) == Array(kv[0..<(n * n)]))
        #expect(file["decoder.blocks.0.cross_attn.value.weight"]?.float16Bits.map(HalfFloat.float(fromBits:)) == Array(kv[(n * n)...]))
        #expect(file["decoder.blocks.0.cross_attn.value.bias"]?.float32Values == Array(kvBias[n...]))
        #expect(file["decoder.blocks.0.cross_attn.key.bias"] == nil)
        #expect(file["decoder.blocks.0.cross_attn.query.weight"]?.float16Bits.map(HalfFloat.float(fromBits:)) == model.values["decoder/layer_0/attention/linear_0/weight"])
    }

    @Test("Float32 and bfloat16 sources are rounded to float16; float16 sources are copied")
    func typeConversion() throws {
        let directory = try TemporaryDirectory()
        let model = SyntheticWhisperModel()
        let (file, _, _) = try Self.convert(model, in: directory)
        let f32 = try #require(model.values["decoder/layer_0/ffn/linear_0/weight"])
        #expect(file["decoder.blocks.0.mlp.0.weight"]?.float16Bits == f32.map(HalfFloat.bits(from:)))
        #expect(f32.map(HalfFloat.bits(from:)).map(HalfFloat.float(fromBits:)) != f32)  // the test data really needs rounding
        let gamma = try #require(model.values["encoder/layer_1/ffn/layer_norm/gamma"])
        #expect(file["encoder.blocks.1.mlp_ln.weight"]?.float32Values == gamma)  // float32 stays exact
        let bf16 = try #require(model.values["decoder/layer_0/attention/linear_2/weight"])
        #expect(file["decoder.blocks.0.cross_attn.out.weight"]?.float16Bits.map(HalfFloat.float(fromBits:)) == bf16)
        let positions = try #require(model.values["decoder/position_encodings/encodings"])
        #expect(file["decoder.positional_embedding"]?.float32Values == positions)
        let embeddings = try #require(model.values["decoder/embeddings/weight"])
        #expect(file["decoder.token_embedding.weight"]?.float16Bits == embeddings.map(HalfFloat.bits(from:)))
    }

    @Test("Progress rises to 1 and the file has exactly the planned size")
    func progressAndSize() throws {
        let directory = try TemporaryDirectory()
        let (file, output, fractions) = try Self.convert(in: directory)
        #expect(fractions.first == 0)
        #expect(fractions.last == 1)
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 })
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int
        let tensorBytes = file.tensors.reduce(0) { $0 + 12 + 4 * $1.dims.count + $1.name.utf8.count + $1.data.count }
        let headerBytes = 4 + 44 + 8 + 4 * file.mel.count + 4 + file.tokens.reduce(0) { $0 + 4 + $1.count }
        #expect(size == headerBytes + tensorBytes)
        // Nothing but the result is left beside it.
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path) == ["ggml-test.bin"])
    }

    @Test("A directory holding model.bin is accepted")
    func directoryInput() throws {
        let directory = try TemporaryDirectory()
        let inputs = try SyntheticWhisperModel().write(to: directory.url)
        let output = directory.file("ggml.bin")
        try WhisperModelConverter.convert(ctranslate2Model: directory.url, melFilters: inputs.mel, tokenizer: inputs.tokenizer, output: output)
        #expect(try GGMLWhisperFile(contentsOf: output).tensors.count == 5 + 2 * 15 + 4 + 24 + 2)
    }

    @Test("A failed conversion leaves an existing model untouched and no partial file")
    func failureIsAtomic() throws {
        let directory = try TemporaryDirectory()
        let inputs = try SyntheticWhisperModel(keyBias: 0.5).write(to: directory.url)
        let output = directory.file("models/ggml.bin")
        try FileManager.default.createDirectory(at: output.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("previous model".utf8).write(to: output)
        #expect(throws: WhisperModelConverter.ConversionError.nonZeroKeyBias(variable: "encoder/layer_0/self_attention/linear_0/bias")) {
            try WhisperModelConverter.convert(ctranslate2Model: inputs.model, melFilters: inputs.mel, tokenizer: inputs.tokenizer, output: output)
        }
        #expect(try Data(contentsOf: output) == Data("previous model".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: output.deletingLastPathComponent().path) == ["ggml.bin"])
    }

    @Test("A successful conversion replaces an existing file")
    func replaces() throws {
        let directory = try TemporaryDirectory()
        let inputs = try SyntheticWhisperModel().write(to: directory.url)
        let output = directory.file("ggml.bin")
        try Data("old".utf8).write(to: output)
        try WhisperModelConverter.convert(ctranslate2Model: inputs.model, melFilters: inputs.mel, tokenizer: inputs.tokenizer, output: output)
        #expect(try GGMLWhisperFile(contentsOf: output).magic == 0x6767_6D6C)
    }

    @Test("Wrong inputs give errors that name the problem")
    func inputErrors() throws {
        let directory = try TemporaryDirectory()
        let inputs = try SyntheticWhisperModel().write(to: directory.url)
        let output = directory.file("ggml.bin")
        let badMel = directory.file("bad.npz")
        try NumPyFixtures.npz(at: badMel, arrays: ["mel_80": NumPyFixtures.npy([0], shape: [1, 1])])
        #expect(throws: NumPyArray.ReadError.missingArray(key: "mel_2", available: ["mel_80"])) {
            try WhisperModelConverter.convert(ctranslate2Model: inputs.model, melFilters: badMel, tokenizer: inputs.tokenizer, output: output)
        }
        let badTokens = directory.file("bad.tiktoken")
        try Data("IQ== 0\nnot base64!! 1\n".utf8).write(to: badTokens)
        #expect(throws: WhisperModelConverter.ConversionError.invalidTokenizer(line: 2)) {
            try WhisperModelConverter.convert(ctranslate2Model: inputs.model, melFilters: inputs.mel, tokenizer: badTokens, output: output)
        }
        var other = CTranslate2Writer()
        other.spec = "TransformerSpec"
        let otherModel = directory.file("other.bin")
        try other.encoded().write(to: otherModel)
        #expect(throws: WhisperModelConverter.ConversionError.notWhisper("spec TransformerSpec")) {
            try WhisperModelConverter.convert(ctranslate2Model: otherModel, melFilters: inputs.mel, tokenizer: inputs.tokenizer, output: output)
        }
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }
}

@Suite("CTranslate2 model reader", .timeLimit(.minutes(10)))
struct CTranslate2ModelTests {
    @Test("Variables, scalars and aliases are indexed without loading data")
    func index() throws {
        let directory = try TemporaryDirectory()
        let inputs = try SyntheticWhisperModel().write(to: directory.url)
        let model = try CTranslate2Model(contentsOf: inputs.model)
        #expect(model.binaryVersion == 6)
        #expect(model.specName == "WhisperSpec")
        #expect(model.specRevision == 3)
        #expect(try model.integer("encoder/num_heads") == 2)
        #expect(try model.integer("decoder/activation") == 3)
        #expect(try model.integer("missing") == nil)
        let embedding = try model.require("decoder/embeddings/weight")
        #expect(embedding.shape == [6, 4])
        #expect(embedding.dataType == .float16)
        #expect(model.variable("decoder/projection/weight") == embedding)
        #expect(try model.floats(embedding, elements: 4..<8) == SyntheticWhisperModel().values["decoder/embeddings/weight"].map { Array($0[4..<8]) })
        #expect(throws: CTranslate2Model.ReadError.missingVariable("nope")) { try model.require("nope") }
    }

    @Test("Truncated files and unknown versions are refused")
    func damaged() throws {
        let directory = try TemporaryDirectory()
        let full = SyntheticWhisperModel().writer.encoded()
        let truncated = directory.file("truncated.bin")
        try full.prefix(full.count / 2).write(to: truncated)
        #expect(throws: CTranslate2Model.ReadError.truncated(truncated)) { try CTranslate2Model(contentsOf: truncated) }
        var old = CTranslate2Writer()
        old.version = 2
        let oldFile = directory.file("old.bin")
        try old.encoded().write(to: oldFile)
        #expect(throws: CTranslate2Model.ReadError.unsupportedVersion(2)) { try CTranslate2Model(contentsOf: oldFile) }
    }
}
