public import Foundation
public import SibylCore
import Synchronization

/// Silero VAD (v6) on ONNX Runtime: the probability that each 32 ms of 16 kHz audio is speech.
/// The model is loaded once per process; each stream of audio gets its own `SileroStream`, which
/// carries the model's recurrent state and the last 64 samples from one frame to the next.
public final class SileroVoiceDetector: Sendable {
    public let library: URL
    public let model: URL
    private let loaded = Mutex<OnnxModel?>(nil)

    /// Samples per frame at 16 kHz, and the samples of the frame before that each frame is read with.
    static let frameLength = 512
    static let contextLength = 64

    public init(library: URL, model: URL) {
        self.library = library
        self.model = model
    }

    /// The engines directory's runtime and model.
    public convenience init(layout: EngineLayout) {
        self.init(library: layout.onnxRuntime, model: layout.sileroModel)
    }

    public var isInstalled: Bool { [library, model].allSatisfy { FileManager.default.fileExists(atPath: $0.path) } }

    /// A classifier for one new stream of audio; fails when the model cannot be loaded.
    public func stream() throws -> SileroStream {
        try SileroStream(model: loadedModel())
    }

    func loadedModel() throws -> OnnxModel {
        try loaded.withLock { loaded in
            if let loaded { return loaded }
            for file in [library, model] where !FileManager.default.fileExists(atPath: file.path) {
                throw LocalEngineError.notInstalled(component: "stt", missing: file.path)
            }
            // One thread: a frame is tiny, and the recogniser wants the other cores.
            let created = try OnnxModel(runtime: try OnnxRuntime.open(library), file: model, threads: 1)
            loaded = created
            return created
        }
    }
}

/// One stream's Silero state (see `SileroVoiceDetector`).
public final class SileroStream: SpeechClassifier, @unchecked Sendable {
    private let model: OnnxModel
    private let lock = NSLock()
    private var state: OnnxTensor
    private var context: [Float]
    private let rate: OnnxTensor

    init(model: OnnxModel) throws {
        self.model = model
        state = try model.runtime.tensor([Float](repeating: 0, count: 2 * 128), shape: [2, 1, 128])
        context = [Float](repeating: 0, count: SileroVoiceDetector.contextLength)
        rate = try model.runtime.tensor([Int64(16_000)], shape: [])
    }

    public var frameLength: Int { SileroVoiceDetector.frameLength }

    public func speechProbability(_ frame: [Float]) -> Float? {
        lock.lock()
        defer { lock.unlock() }
        guard frame.count == frameLength else { return nil }
        do {
            let input = try model.runtime.tensor(context + frame, shape: [1, context.count + frame.count])
            let outputs = try model.run([("input", input), ("state", state), ("sr", rate)], outputs: ["output", "stateN"])
            state = outputs[1]
            context = Array(frame.suffix(SileroVoiceDetector.contextLength))
            return outputs[0].elements(as: Float.self).first
        } catch {
            return nil
        }
    }
}
