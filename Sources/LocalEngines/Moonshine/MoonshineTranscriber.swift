public import Foundation
public import SibylCore
import Synchronization

/// Offline English speech-to-text with Moonshine base on ONNX Runtime, in this process: the model
/// is loaded once (on the first question, or by `start()`) and stays loaded. Made for short live
/// speech: unlike Whisper it does not pad every recording to 30 s.
public final class MoonshineTranscriber: DraftingTranscriber, Sendable {
    public let library: URL
    public let directory: URL
    public let threads: Int

    /// The longest recording read at once (Moonshine was trained on speech up to this length).
    public static let longestRecording = 30.0

    private let loaded = Mutex<MoonshineModel?>(nil)
    /// Model work runs here, off Swift's cooperative threads: one recording at a time.
    private let queue = DispatchQueue(label: "sibyl.moonshine")

    public init(library: URL, directory: URL, threads: Int = WhisperTranscriber.defaultThreads) {
        self.library = library
        self.directory = directory
        self.threads = max(1, threads)
    }

    /// The engines directory's runtime and model.
    public convenience init(layout: EngineLayout, threads: Int = WhisperTranscriber.defaultThreads) {
        self.init(library: layout.onnxRuntime, directory: layout.moonshineDirectory, threads: threads)
    }

    /// The files Moonshine needs, and whether they are all in place.
    public var files: [URL] {
        [library] + ["encoder_model.ort", "decoder_model_merged.ort", "tokenizer.bin"].map { directory.appendingPathComponent($0) }
    }

    public var isInstalled: Bool { files.allSatisfy { FileManager.default.fileExists(atPath: $0.path) } }

    /// Loads the model and runs it once on a moment of silence, so the first question does not
    /// wait; nothing when it is loaded already.
    public func start() async throws {
        guard !isLoaded else { return }
        _ = try await onQueue { model, _ in try model.decode(try model.encode([Float](repeating: 0, count: 8_000)), seconds: 0.5) }
    }

    /// Whether the model is loaded.
    public var isLoaded: Bool { loaded.withLock { $0 != nil } }

    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription {
        try await transcribe(audio, options: options, draft: nil)
    }

    /// Transcribes, checking a partial transcript's tokens first (see `MoonshineModel.decode`).
    public func transcribe(_ audio: AudioFile, options: TranscriptionOptions, draft: Transcription?) async throws -> Transcription {
        if let language = options.language?.trimmingCharacters(in: .whitespaces).lowercased(), !language.isEmpty, language != "en" {
            throw MoonshineError.englishOnly(language)
        }
        let recording = try WhisperTranscriber.decode(audio)
        let samples = AudioResampling.speechSamples(from: recording)
        let seconds = Double(samples.count) / Double(AudioResampling.speechSampleRate)
        // The encoder needs a little sound to read (its convolutions shrink the input 384-fold).
        guard samples.count >= AudioResampling.speechSampleRate / 10 else { return Transcription(text: "", language: "en", duration: recording.duration) }
        let draftTokens = draft?.tokens ?? []
        let (text, tokens) = try await onQueue { model, cancelled in
            let tokens = try model.decode(try model.encode(samples), seconds: seconds, draft: draftTokens, shouldStop: cancelled)
            return (model.tokenizer.text(tokens), tokens)
        }
        try Task.checkCancellation()
        return Transcription(text: text, language: "en", duration: recording.duration, tokens: tokens)
    }

    /// Runs `work` on the model's queue, loading the model first if needed; `work` is told when
    /// the asking task was cancelled, so it can stop between tokens.
    private func onQueue<T: Sendable>(_ work: @escaping @Sendable (MoonshineModel, _ cancelled: () -> Bool) throws -> T) async throws -> T {
        let cancelled = Atomic<Bool>(false)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result {
                        try work(try self.model(), { cancelled.load(ordering: .relaxed) })
                    })
                }
            }
        } onCancel: {
            cancelled.store(true, ordering: .relaxed)
        }
    }

    /// The loaded model (loaded now on first use). Called on the queue only.
    private func model() throws -> MoonshineModel {
        if let model = loaded.withLock({ $0 }) { return model }
        for file in files where !FileManager.default.fileExists(atPath: file.path) {
            throw LocalEngineError.notInstalled(component: "stt", missing: file.path)
        }
        let model = try MoonshineModel(runtime: try OnnxRuntime.open(library), directory: directory, threads: threads)
        loaded.withLock { $0 = model }
        return model
    }
}
