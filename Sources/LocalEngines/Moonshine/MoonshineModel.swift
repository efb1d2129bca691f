import Foundation

/// Moonshine base (English) on ONNX Runtime: an encoder over the raw 16 kHz samples (no 30 s
/// padding: its cost follows the length of the speech) and a decoder that writes tokens one at a
/// time, keeping its attention keys and values between steps.
final class MoonshineModel: @unchecked Sendable {
    /// Moonshine base's decoder: layers, attention heads and the size of each head.
    static let layers = 8
    static let heads = 8
    static let headSize = 52
    /// Tokens allowed per second of speech (a guard against a decoder that repeats itself).
    static let tokensPerSecond = 6.5

    let runtime: OnnxRuntime
    let encoder: OnnxModel
    let decoder: OnnxModel
    let tokenizer: MoonshineTokenizer
    private let cacheOutputs: [String]

    init(runtime: OnnxRuntime, directory: URL, threads: Int) throws {
        self.runtime = runtime
        // The encoder reads the whole recording at once: a long one would leave its memory held for good.
        encoder = try OnnxModel(runtime: runtime, file: directory.appendingPathComponent("encoder_model.ort"), threads: threads, keepsMemory: false)
        decoder = try OnnxModel(runtime: runtime, file: directory.appendingPathComponent("decoder_model_merged.ort"), threads: threads)
        tokenizer = try MoonshineTokenizer(contentsOf: directory.appendingPathComponent("tokenizer.bin"))
        cacheOutputs = (0..<Self.layers).flatMap { layer in
            ["decoder.key", "decoder.value", "encoder.key", "encoder.value"].map { "present.\(layer).\($0)" }
        }
    }

    /// The decoder's state after the tokens written so far.
    struct Decoding {
        var tokens: [Int]
        /// `present.*` of the last step, fed back as `past_key_values.*`.
        var cache: [String: OnnxTensor]
        var logits: OnnxTensor
    }

    /// The encoder's reading of the speech.
    func encode(_ samples: [Float]) throws -> OnnxTensor {
        let input = try runtime.tensor(samples, shape: [1, samples.count])
        return try encoder.run([("input_values", input)], outputs: ["last_hidden_state"])[0]
    }

    /// The most tokens a recording of `seconds` may take.
    static func tokenLimit(seconds: Double) -> Int {
        Int((seconds * tokensPerSecond).rounded(.up)) + 5
    }

    /// Greedy decoding of an encoded recording. `shouldStop` is asked between tokens (a cancel).
    ///
    /// `draft`: tokens this recording probably begins with (a partial transcript of its start). They
    /// are checked in one decoder call: the model's own choice after each is read from the same
    /// call's logits, the draft is kept up to the first token the model would not have written,
    /// and decoding goes on from there. The result is greedy decoding's, only sooner.
    func decode(_ encoded: OnnxTensor, seconds: Double, draft: [Int] = [], shouldStop: () -> Bool = { false }) throws -> [Int] {
        let limit = Self.tokenLimit(seconds: seconds)
        let forced = [MoonshineTokenizer.start] + draft.prefix(max(0, limit - 1))
        var state = try start(encoded, tokens: forced)
        if forced.count > 1 {
            var agreed = 0
            while agreed < forced.count - 1, Self.argmax(state.logits, position: agreed) == forced[agreed + 1] { agreed += 1 }
            if agreed < forced.count - 1 { state = try start(encoded, tokens: Array(forced.prefix(agreed + 1))) }
        }
        while state.tokens.count <= limit, !shouldStop() {
            let next = try Self.argmaxOfLast(state.logits)
            if next == MoonshineTokenizer.end { break }
            state = try step(encoded, state, token: next)
        }
        return Array(state.tokens.dropFirst())
    }

    /// The first decoder call: every token in `tokens` at once, with an empty cache.
    func start(_ encoded: OnnxTensor, tokens: [Int]) throws -> Decoding {
        var inputs: [(String, OnnxTensor)] = [
            ("input_ids", try runtime.tensor(tokens.map(Int64.init), shape: [1, tokens.count])),
            ("encoder_hidden_states", encoded),
        ]
        let empty = try runtime.tensor([Float](), shape: [1, Self.heads, 0, Self.headSize])
        for name in cacheOutputs { inputs.append((Self.pastName(name), empty)) }
        inputs.append(("use_cache_branch", try runtime.tensor([false], shape: [1])))
        return try run(inputs, tokens: tokens, previous: nil)
    }

    /// One more token, reading the cache of the steps before.
    func step(_ encoded: OnnxTensor, _ state: Decoding, token: Int) throws -> Decoding {
        var inputs: [(String, OnnxTensor)] = [
            ("input_ids", try runtime.tensor([Int64(token)], shape: [1, 1])),
            ("encoder_hidden_states", encoded),
        ]
        for name in cacheOutputs { inputs.append((Self.pastName(name), state.cache[name]!)) }
        inputs.append(("use_cache_branch", try runtime.tensor([true], shape: [1])))
        return try run(inputs, tokens: state.tokens + [token], previous: state)
    }

    private func run(_ inputs: [(String, OnnxTensor)], tokens: [Int], previous: Decoding?) throws -> Decoding {
        let outputs = try decoder.run(inputs, outputs: ["logits"] + cacheOutputs)
        var cache: [String: OnnxTensor] = [:]
        for (name, tensor) in zip(cacheOutputs, outputs.dropFirst()) {
            // The encoder's keys and values are computed on the first call only; later calls pass them through.
            if let previous, name.contains(".encoder.") { cache[name] = previous.cache[name] } else { cache[name] = tensor }
        }
        return Decoding(tokens: tokens, cache: cache, logits: outputs[0])
    }

    static func pastName(_ present: String) -> String {
        "past_key_values" + present.dropFirst("present".count)
    }

    /// The most likely next token after the last position.
    static func argmaxOfLast(_ logits: OnnxTensor) throws -> Int {
        let shape = logits.shape
        guard shape.count == 3, shape[0] == 1, shape[1] >= 1 else { throw MoonshineError.badOutput("logits \(shape)") }
        return argmax(logits, position: shape[1] - 1)
    }

    /// The most likely token at one position of the logits.
    static func argmax(_ logits: OnnxTensor, position: Int) -> Int {
        let vocabulary = logits.shape[2]
        let values = logits.elements(as: Float.self)
        let row = values[(position * vocabulary)..<((position + 1) * vocabulary)]
        var best = row.startIndex
        for index in row.indices where row[index] > row[best] { best = index }
        return best - row.startIndex
    }
}
