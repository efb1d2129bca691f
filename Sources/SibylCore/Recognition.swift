/// Settings for reading text in an image.
public struct RecognitionOptions: Sendable, Hashable {
    /// Tesseract language codes joined with `+`, such as `eng` or `eng+fra`.
    public var languages: String
    /// The image's resolution, when known; helps with small print.
    public var dpi: Int?

    public init(languages: String = "eng", dpi: Int? = nil) {
        self.languages = languages
        self.dpi = dpi
    }
}

/// Text read from an image, with how sure the engine was.
public struct RecognizedText: Sendable, Hashable {
    /// A recognised word and its confidence (0–100).
    public struct Word: Sendable, Hashable {
        public var text: String
        public var confidence: Double

        public init(text: String, confidence: Double) {
            self.text = text
            self.confidence = confidence
        }
    }

    /// The text, with line and paragraph breaks as laid out.
    public var text: String
    /// Mean word confidence, 0–100 (0 when no words were found).
    public var confidence: Double
    public var words: [Word]

    public init(text: String, confidence: Double, words: [Word]) {
        self.text = text
        self.confidence = confidence
        self.words = words
    }
}
