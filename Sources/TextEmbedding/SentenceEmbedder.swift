public import Foundation
public import SibylCore
import Dispatch
import Synchronization
import TextEmbeddingAVX2
import TextEmbeddingAVX512

/// Sentence embeddings computed in-process with all-MiniLM-L6-v2 (the default) or
/// all-mpnet-base-v2: mean-pooled, unit-length vectors, the same as sentence-transformers gives
/// for that model.
public final class SentenceEmbedder: Embedder {
    /// The model this embedder runs.
    public let model: SentenceModel

    /// Which code runs the forward pass.
    public enum Backend: String, Sendable, CaseIterable {
        /// The AVX-512 kernels where the processor has AVX-512, else the AVX2 ones where it has
        /// AVX2 and FMA, the BLAS otherwise; the environment variable `SIBYL_MINILM_BACKEND`
        /// (`blas`, `avx2` or `avx512`) can choose instead.
        case automatic
        /// Matrix products by OpenBLAS (Linux) or Accelerate (macOS).
        case blas
        /// Hand-vectorised kernels on weights packed at load time, built for AVX2 + FMA (x86-64
        /// since Haswell / Zen).
        case avx2
        /// The same kernels built for AVX-512 (x86-64 with AVX-512F).
        case avx512
    }

    /// The backend in use (never `.automatic`).
    public let backend: Backend

    /// What does the arithmetic, e.g. "OpenBLAS (Haswell)".
    public var backendDescription: String {
        switch backend {
        case .avx512: return "AVX-512 kernels on packed weights"
        case .avx2: return "AVX2 + FMA kernels on packed weights"
        case .automatic, .blas: return Self.blasDescription
        }
    }

    /// The BLAS the `.blas` backend uses, e.g. "OpenBLAS (Haswell)" or "Accelerate".
    public static var blasDescription: String { BLAS.kernelDescription }

    /// Whether `backend` can run on this machine.
    public static func isAvailable(_ backend: Backend) -> Bool {
        switch backend {
        case .avx512: CPUFeatures.hasAVX512
        case .avx2: CPUFeatures.hasAVX2
        case .automatic, .blas: true
        }
    }

    /// The tokenizer the model reads its input with.
    public let tokenizer: BertTokenizer
    /// Threads one call may use.
    public let threads: Int

    private enum Engine: Sendable {
        case blas(SentenceEncoder<BLASKernels>)
        case avx2(SentenceEncoder<PackedEncoderKernels<TextEmbeddingAVX2.PackedKernels>>)
        case avx512(SentenceEncoder<PackedEncoderKernels<TextEmbeddingAVX512.PackedKernels>>)
    }

    private let engine: Engine
    private let workspaces: WorkspacePool
    private let team: WorkerTeam

    /// Loads `model` from a directory holding its `model.safetensors` and `vocab.txt`.
    ///
    /// - Parameters:
    ///   - model: all-MiniLM-L6-v2 (the default) or all-mpnet-base-v2.
    ///   - threads: threads one call may use; defaults to the active processor count.
    ///   - backend: which code runs the forward pass; `.avx512` and `.avx2` throw where the CPU lacks them.
    public init(modelDirectory: URL, model: SentenceModel = .miniLM, threads: Int? = nil, backend: Backend = .automatic) throws {
        let backend = try Self.resolve(backend)
        let weightsURL = modelDirectory.appendingPathComponent(SentenceModel.weightsFileName)
        let vocabularyURL = modelDirectory.appendingPathComponent(SentenceModel.vocabularyFileName)
        for url in [weightsURL, vocabularyURL] where !FileManager.default.fileExists(atPath: url.path) {
            throw MiniLMError.missingFile(path: url.path, model: model.name, variable: model.directoryVariable)
        }
        let vocabulary = try WordPieceVocabulary(contentsOf: vocabularyURL)
        let file: SafeTensorsFile
        do {
            file = try SafeTensorsFile(contentsOf: weightsURL)
        } catch {
            throw MiniLMError.invalidWeights(error)
        }
        let panelWidth: Int? = switch backend {
        case .avx512: TextEmbeddingAVX512.PackedKernels.panelWidth
        case .avx2: TextEmbeddingAVX2.PackedKernels.panelWidth
        case .automatic, .blas: nil
        }
        let weights = try EncoderWeights(file: file, model: model, panelWidth: panelWidth)
        guard weights.vocabularySize == vocabulary.count else {
            throw MiniLMError.vocabularyMismatch(vocabularyTokens: vocabulary.count, embeddingRows: weights.vocabularySize, model: model.name)
        }
        tokenizer = try BertTokenizer(
            vocabulary: vocabulary, startToken: model.startToken, endToken: model.endToken, unknownToken: model.unknownToken
        )
        let shape = model.shape
        switch backend {
        case .avx512: engine = .avx512(SentenceEncoder(weights: weights, kernels: PackedEncoderKernels(shape: shape)))
        case .avx2: engine = .avx2(SentenceEncoder(weights: weights, kernels: PackedEncoderKernels(shape: shape)))
        case .automatic, .blas: engine = .blas(SentenceEncoder(weights: weights, kernels: BLASKernels(shape: shape)))
        }
        self.model = model
        workspaces = WorkspacePool(shape: shape, longest: model.maxTokens)
        self.backend = backend
        self.threads = max(1, threads ?? ProcessInfo.processInfo.activeProcessorCount)
        team = WorkerTeam(size: self.threads)
        BLAS.useCallingThreadOnly()
    }

    /// The token ids the model sees for `text`: start token, pieces, end token, at most
    /// `model.maxTokens`.
    public func tokenize(_ text: String) -> [Int] {
        tokenizer.encode(text, maxLength: model.maxTokens).map(Int.init)
    }

    /// Embeds `texts`, returning one vector per text in the same order.
    public func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult {
        if let requested = options.model, !model.accepts(requested) {
            throw MiniLMError.unsupportedModel(requested, runs: model.name)
        }
        if let dimensions = options.dimensions, dimensions != model.dimension {
            throw MiniLMError.unsupportedDimensions(dimensions, model: model.name, makes: model.dimension)
        }
        guard !texts.isEmpty else {
            return EmbeddingResult(vectors: [], model: model.name, promptTokens: 0)
        }
        let cancelled = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<EmbeddingResult, any Error>) in
                // The work is CPU-bound for up to seconds: keep it off Swift's cooperative threads.
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result { try self.embedNow(texts, cancelled: cancelled) })
                }
            }
        } onCancel: {
            cancelled.cancel()
        }
    }

    private static func resolve(_ requested: Backend) throws -> Backend {
        switch requested {
        case .blas:
            return .blas
        case .avx512, .avx2:
            guard isAvailable(requested) else { throw MiniLMError.backendUnavailable(requested.rawValue) }
            return requested
        case .automatic:
            let chosen = ProcessInfo.processInfo.environment["SIBYL_MINILM_BACKEND"].flatMap(Backend.init(rawValue:))
            if let chosen, chosen != .automatic { return try resolve(chosen) }
            return CPUFeatures.hasAVX512 ? .avx512 : CPUFeatures.hasAVX2 ? .avx2 : .blas
        }
    }

    /// Embeds on the calling thread plus up to `threads - 1` others, blocking until done.
    func embedNow(_ texts: [String], cancelled: CancellationFlag = CancellationFlag()) throws -> EmbeddingResult {
        let sequences = texts.map { tokenizer.encode($0, maxLength: model.maxTokens) }
        let tokenCount = sequences.reduce(0) { $0 + $1.count }
        let dimension = model.dimension
        let output = FloatBuffer(count: texts.count * dimension)
        try run(sequences, tokenCount: tokenCount, output: output.pointer, cancelled: cancelled)
        let vectors = (0..<texts.count).map { index in
            Array(UnsafeBufferPointer(start: output.pointer + index * dimension, count: dimension))
        }
        return EmbeddingResult(vectors: vectors, model: model.name, promptTokens: tokenCount)
    }

    /// Token budget of one pack when packs run in parallel, one per worker.
    ///
    /// (512 rows keep a pack's activations within a core's L2 cache; measured faster than 256,
    /// 1024 or 2048 on both backends.)
    static let packTokens = 512

    private func run(
        _ sequences: [[Int32]], tokenCount: Int, output: UnsafeMutablePointer<Float>, cancelled: CancellationFlag
    ) throws {
        switch engine {
        case .blas(let encoder): try run(encoder, sequences, tokenCount: tokenCount, output: output, cancelled: cancelled)
        case .avx2(let encoder): try run(encoder, sequences, tokenCount: tokenCount, output: output, cancelled: cancelled)
        case .avx512(let encoder): try run(encoder, sequences, tokenCount: tokenCount, output: output, cancelled: cancelled)
        }
    }

    private func run<Kernels>(
        _ encoder: SentenceEncoder<Kernels>, _ sequences: [[Int32]], tokenCount: Int,
        output: UnsafeMutablePointer<Float>, cancelled: CancellationFlag
    ) throws {
        let workers = threads
        // Small requests: one pack, each step divided across the threads.
        if tokenCount <= Self.packTokens || (workers > 1 && tokenCount < workers * Self.packTokens) {
            let pack = PackedSequences.plan(sequences, tokenBudget: tokenCount)[0]
            try cancelled.check()
            let workspace = workspaces.take(
                tokens: pack.tokenCount, sequenceLength: pack.longest, workers: workers,
                attentionScratch: encoder.kernels.attentionScratchCount(length: model.maxTokens)
            )
            team.withSplitter(fallback: WorkSplitter(workers: workers)) { split in
                encoder.encode(pack, workspace: workspace, split: split, output: output)
            }
            workspaces.give(workspace)
            return
        }
        // Large requests: packs handed out to threads that each run whole forward passes alone.
        let packs = PackedSequences.plan(sequences, tokenBudget: Self.packTokens)
        let capacity = packs.map(\.tokenCount).max() ?? 0
        let longest = packs.map(\.longest).max() ?? 0
        let next = Atomic<Int>(0)
        // Each pack writes the rows of its own sequences only.
        nonisolated(unsafe) let output = output
        DispatchQueue.concurrentPerform(iterations: min(workers, packs.count)) { _ in
            let workspace = workspaces.take(
                tokens: capacity, sequenceLength: longest, workers: 1,
                attentionScratch: encoder.kernels.attentionScratchCount(length: model.maxTokens)
            )
            while !cancelled.isCancelled {
                let index = next.add(1, ordering: .relaxed).oldValue
                guard index < packs.count else { break }
                encoder.encode(packs[index], workspace: workspace, split: .inline, output: output)
            }
            workspaces.give(workspace)
        }
        try cancelled.check()
    }
}

/// Scratch memory kept between calls: fresh allocations would be paid again in page faults.
///
/// Workspaces are made for at least a whole pack of the longest sequences, so that a few serve
/// every request; larger ones (one pack of more than a pack's worth of tokens) are not kept.
final class WorkspacePool: Sendable {
    private let idle = Mutex<[EncoderWorkspace]>([])
    private let limit = 8
    private let shape: EncoderShape
    private let longest: Int

    /// Workspaces for an encoder of `shape` over sequences of up to `longest` tokens.
    init(shape: EncoderShape, longest: Int) {
        self.shape = shape
        self.longest = longest
    }

    func take(tokens: Int, sequenceLength: Int, workers: Int, attentionScratch: Int) -> EncoderWorkspace {
        let tokens = max(tokens, SentenceEmbedder.packTokens)
        let sequenceLength = max(sequenceLength, longest)
        let reused = idle.withLock { idle -> EncoderWorkspace? in
            guard let index = idle.firstIndex(where: {
                $0.tokenCapacity >= tokens && $0.sequenceCapacity >= sequenceLength && $0.attentionScratch.count >= workers
                    && $0.attentionScratch[0].count >= attentionScratch
            }) else { return nil }
            return idle.remove(at: index)
        }
        return reused ?? EncoderWorkspace(
            shape: shape, tokenCapacity: tokens, sequenceCapacity: sequenceLength, workers: workers, attentionScratch: attentionScratch
        )
    }

    func give(_ workspace: EncoderWorkspace) {
        guard workspace.tokenCapacity <= SentenceEmbedder.packTokens else { return }
        idle.withLock { idle in
            if idle.count >= limit { idle.removeFirst() }
            idle.append(workspace)
        }
    }
}

/// Set when the task awaiting an embedding is cancelled; checked between packs.
final class CancellationFlag: Sendable {
    private let flag = Atomic<Bool>(false)

    func cancel() { flag.store(true, ordering: .relaxed) }
    var isCancelled: Bool { flag.load(ordering: .relaxed) }
    func check() throws { if isCancelled { throw CancellationError() } }
}
