import SibylCore

/// Turns OCR output into blocks, each with the mean confidence of its own words.
enum OCRBlocks {
    static func add(_ recognized: RecognizedText, page: Int?, to collector: inout BlockCollector) {
        var words = recognized.words[...]
        // tesseract's paragraphs are separated by blank lines; its words match the text's tokens one for one.
        for block in recognized.text.components(separatedBy: "\n\n") {
            let tokens = block.split(whereSeparator: \.isWhitespace).count
            let own = words.prefix(tokens)
            words = words.dropFirst(tokens)
            let confidence = own.isEmpty ? recognized.confidence : own.map(\.confidence).reduce(0, +) / Double(own.count)
            for paragraph in LineParagraphs.split(block) {
                collector.add(paragraph.kind, paragraph.text, page: page, ocrConfidence: confidence)
            }
        }
    }
}
