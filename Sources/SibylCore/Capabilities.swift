import Foundation

/// A model that answers chat messages, whole or streamed.
public protocol ChatModel: Sendable {
    /// Asks for a complete answer.
    func complete(_ request: ChatRequest) async throws -> ChatCompletion
    /// Asks for an answer streamed as it is generated; the last event is `.finished`.
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ChatStreamEvent, any Error>
}

/// Turns speech into text (or into English text, when translating).
public protocol Transcriber: Sendable {
    func transcribe(_ audio: AudioFile, options: TranscriptionOptions) async throws -> Transcription
}

/// A transcriber that reads a recording sooner given an earlier transcription of its beginning
/// (a partial transcript taken while the person was still speaking): the draft's words are
/// checked all at once instead of written one by one, and the text is what it would be without.
public protocol DraftingTranscriber: Transcriber {
    func transcribe(_ audio: AudioFile, options: TranscriptionOptions, draft: Transcription?) async throws -> Transcription
}

/// Turns text into speech.
public protocol SpeechSynthesizer: Sendable {
    func synthesize(_ text: String, options: SpeechOptions) async throws -> AudioFile
}

/// Turns texts into vectors.
public protocol Embedder: Sendable {
    func embed(_ texts: [String], options: EmbeddingOptions) async throws -> EmbeddingResult
}

/// Draws images from a prompt.
public protocol ImageGenerator: Sendable {
    func generateImages(_ prompt: String, options: ImageOptions) async throws -> [GeneratedImage]
}

/// Counts tokens the way a model's tokenizer would, or estimates them.
public protocol TokenCounter: Sendable {
    /// Tokens in a piece of text.
    func count(_ text: String) -> Int
    /// Whether the counts are exact (a real tokenizer) or an estimate.
    var isExact: Bool { get }
}

extension TokenCounter {
    /// Tokens a chat message costs: its text plus the per-message framing.
    ///
    /// Chat formats wrap each message in a few special tokens (role markers, separators);
    /// OpenAI documents 3 per message for its current models, ChatML uses 4–5, so 4 is used.
    /// An image is counted at 765 tokens, OpenAI's cost of one 1024×1024 high-detail tile set.
    public func count(_ message: ChatMessage) -> Int {
        var total = 4
        for part in message.parts {
            switch part {
            case .text(let text): total += count(text)
            case .image: total += 765
            }
        }
        return total
    }
}

/// A token estimate for when no tokenizer for the model is at hand.
///
/// BPE tokenizers average about 4 characters per token on English prose and about one token per
/// character for Chinese or Japanese, which are 3 UTF-8 bytes each. Counting one token per 3 UTF-8
/// bytes (rounded up) therefore over-counts English by about a quarter and is close for CJK text:
/// it errs on the side of leaving room, which is what a context budget needs.
public struct EstimatingTokenCounter: TokenCounter {
    public init() {}

    public func count(_ text: String) -> Int {
        (text.utf8.count + 2) / 3
    }

    public var isExact: Bool { false }
}

/// Reads printed text in images.
public protocol TextRecognizer: Sendable {
    func recognize(_ image: Data, options: RecognitionOptions) async throws -> RecognizedText
}

/// Problems reading text in images, from any OCR engine.
public enum RecognitionError: Error, LocalizedError, Equatable {
    case notAnImage
    case engineFailed(String)

    public var errorDescription: String? {
        switch self {
        case .notAnImage: "The file is not an image tesseract can read (PNG, JPEG, TIFF, WebP, GIF)."
        case .engineFailed(let detail): "tesseract failed: \(detail)"
        }
    }
}

/// What a model provider's failure means to an answer, whatever the provider: the engine reads
/// this, never an adapter's own error type.
public protocol AnswerStreamFailure: Error {
    /// The text that had arrived when a streamed answer broke off; nil when it did not.
    var partialAnswer: String? { get }
    /// Whether the request ended because the caller cancelled it.
    var isCancellation: Bool { get }
}
