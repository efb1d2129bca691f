public import Foundation
public import SibylCore
import Synchronization

/// A Piper voice's settings, from the `.onnx.json` beside its model.
struct PiperVoiceConfiguration: Sendable {
    var sampleRate: Int
    /// espeak-ng's voice for the phonemes ("en-us").
    var espeakVoice: String
    var noiseScale: Float
    var lengthScale: Float
    var noiseWidth: Float
    /// Each phoneme (one Unicode scalar) and its ids.
    var phonemeIDs: [Unicode.Scalar: [Int64]]

    init(contentsOf file: URL) throws {
        struct File: Decodable {
            struct Audio: Decodable { var sample_rate: Int }
            struct Espeak: Decodable { var voice: String }
            struct Inference: Decodable { var noise_scale: Float; var length_scale: Float; var noise_w: Float }
            var audio: Audio
            var espeak: Espeak
            var inference: Inference
            var phoneme_id_map: [String: [Int64]]
        }
        let decoded = try JSONDecoder().decode(File.self, from: Data(contentsOf: file))
        sampleRate = decoded.audio.sample_rate
        espeakVoice = decoded.espeak.voice
        noiseScale = decoded.inference.noise_scale
        lengthScale = decoded.inference.length_scale
        noiseWidth = decoded.inference.noise_w
        var ids: [Unicode.Scalar: [Int64]] = [:]
        for (phoneme, values) in decoded.phoneme_id_map {
            let scalars = Array(phoneme.unicodeScalars)
            if scalars.count == 1 { ids[scalars[0]] = values }
        }
        phonemeIDs = ids
        for required in ["^", "$", "_"] where ids[Unicode.Scalar(required)!] == nil {
            throw SpeechError.engineFailed("the voice's phoneme map in \(file.lastPathComponent) has no '\(required)'")
        }
    }

    /// The ids Piper reads for a sentence's phonemes: "^", each phoneme followed by the pad "_",
    /// then "$". Phonemes are decomposed first (NFD), as the voice was trained; ones the voice does
    /// not know are left out.
    func ids(for phonemes: String) -> [Int64] {
        let pad = phonemeIDs["_"]!
        var ids = phonemeIDs["^"]! + pad
        for scalar in phonemes.decomposedStringWithCanonicalMapping.unicodeScalars {
            guard let known = phonemeIDs[scalar] else { continue }
            ids += known
            ids += pad
        }
        return ids + phonemeIDs["$"]!
    }
}

/// Offline text-to-speech with a Piper voice (`en_US-joe-medium`) on ONNX Runtime, in this process:
/// the voice is loaded once (on the first sentence, or by `start()`) and stays loaded. Its phonemes
/// come from espeak-ng. Each sentence is one run of the model, so a caller that wants the first
/// sentence sooner synthesises sentence by sentence.
public final class PiperSynthesizer: SpeechSynthesizer, Sendable {
    public let library: URL
    public let model: URL
    public let configurationFile: URL
    public let threads: Int
    let espeak: String?

    /// Names that choose this voice (besides the default voice).
    public static let voiceNames: Set<String> = ["joe", "en_us-joe-medium", "piper"]
    /// Silence between two sentences of one text.
    static let sentencePause = 0.2

    private let loaded = Mutex<OnnxModel?>(nil)
    private let settings = Mutex<PiperVoiceConfiguration?>(nil)
    /// Model work runs here, off Swift's cooperative threads: one sentence at a time.
    private let queue = DispatchQueue(label: "sibyl.piper")

    public init(library: URL, model: URL, configuration: URL, espeak: String? = nil, threads: Int = WhisperTranscriber.defaultThreads) {
        self.library = library
        self.model = model
        self.configurationFile = configuration
        self.espeak = espeak ?? (try? CommandRunner.resolve("espeak-ng"))
        self.threads = max(1, threads)
    }

    /// The engines directory's runtime and voice.
    public convenience init(layout: EngineLayout, threads: Int = WhisperTranscriber.defaultThreads) {
        self.init(library: layout.onnxRuntime, model: layout.piperVoice, configuration: layout.piperVoiceConfiguration, threads: threads)
    }

    /// Whether the voice, its runtime and espeak-ng are all in place.
    public var isInstalled: Bool {
        espeak != nil && [library, model, configurationFile].allSatisfy { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// Whether the voice is loaded.
    public var isLoaded: Bool { loaded.withLock { $0 != nil } }

    /// The voice's sample rate (22,050 Hz for joe-medium).
    public func sampleRate() throws -> Int { try configuration().sampleRate }

    /// Loads the voice and speaks a word with it, so the first answer does not wait; nothing when
    /// it is loaded already.
    public func start() async throws {
        guard !isLoaded else { return }
        _ = try await samples(for: "Ready.", speed: 1)
    }

    public func synthesize(_ text: String, options: SpeechOptions) async throws -> AudioFile {
        guard options.format == .wav || options.format == .pcm else { throw SpeechError.unsupportedFormat(options.format.rawValue) }
        let sentences = SentenceSplitter.sentences(in: text).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
        guard !sentences.isEmpty else { throw SpeechError.emptyText }
        let speed = min(4, max(0.25, options.speed ?? 1))
        let rate = try sampleRate()
        var pcm = Data()
        for (index, sentence) in sentences.enumerated() {
            try Task.checkCancellation()
            if index > 0 { pcm.append(Data(count: Int(Double(rate) * Self.sentencePause) * 2)) }
            pcm.append(Self.pcm16(try await samples(for: sentence, speed: speed)))
        }
        if options.format == .pcm { return AudioFile(data: pcm, format: .pcm) }
        return AudioFile(data: WAVAudio(sampleRate: rate, channels: 1, bitsPerSample: 16, samples: pcm).encoded(), format: .wav)
    }

    /// One sentence's audio, as floats in -1…1 at the voice's sample rate.
    func samples(for sentence: String, speed: Double) async throws -> [Float] {
        guard let espeak else { throw LocalEngineError.notInstalled(component: "tts", missing: "espeak-ng") }
        let configuration = try configuration()
        let phonemes = try await EspeakPhonemizer(executable: espeak, voice: configuration.espeakVoice).phonemes(sentence)
        let ids = configuration.ids(for: phonemes)
        // "^", "_" and "$" alone: nothing to say.
        guard ids.count > 3 else { return [] }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result {
                    let model = try self.loadedModel()
                    let runtime = model.runtime
                    let scales: [Float] = [configuration.noiseScale, configuration.lengthScale / Float(speed), configuration.noiseWidth]
                    let outputs = try model.run([
                        ("input", try runtime.tensor(ids, shape: [1, ids.count])),
                        ("input_lengths", try runtime.tensor([Int64(ids.count)], shape: [1])),
                        ("scales", try runtime.tensor(scales, shape: [3])),
                    ], outputs: ["output"])
                    let samples = Array(outputs[0].elements(as: Float.self))
                    // A long sentence's working memory goes back to the system, not to the heap.
                    withExtendedLifetime(outputs) {}
                    FreedMemory.giveBack()
                    return samples
                })
            }
        }
    }

    /// Floats in -1…1 (clipped) as 16-bit little-endian PCM.
    static func pcm16(_ samples: [Float]) -> Data {
        var data = Data(capacity: samples.count * 2)
        for sample in samples {
            let value = Int16((max(-1, min(1, sample)) * 32767).rounded())
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        return data
    }

    /// The voice's settings (read on first use).
    private func configuration() throws -> PiperVoiceConfiguration {
        try settings.withLock { settings in
            if let settings { return settings }
            guard FileManager.default.fileExists(atPath: configurationFile.path) else {
                throw LocalEngineError.notInstalled(component: "tts", missing: configurationFile.path)
            }
            let read = try PiperVoiceConfiguration(contentsOf: configurationFile)
            settings = read
            return read
        }
    }

    /// The loaded voice (loaded now on first use). Called on the queue only.
    private func loadedModel() throws -> OnnxModel {
        if let model = loaded.withLock({ $0 }) { return model }
        for file in [library, model] where !FileManager.default.fileExists(atPath: file.path) {
            throw LocalEngineError.notInstalled(component: "tts", missing: file.path)
        }
        // A long sentence needs hundreds of megabytes the next short one does not: given back after each.
        let created = try OnnxModel(runtime: try OnnxRuntime.open(library), file: model, threads: threads, keepsMemory: false)
        loaded.withLock { $0 = created }
        return created
    }
}
