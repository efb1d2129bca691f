import SibylCore

/// Plain text: one paragraph per run of non-blank lines, line breaks kept.
enum PlainTextReader {
    static func read(_ text: String) throws -> [DocumentBlock] {
        var collector = BlockCollector()
        var paragraph: [Substring] = []
        var lineCount = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            lineCount += 1
            if lineCount.isMultiple(of: 4096) { try Task.checkCancellation() }
            if line.allSatisfy(\.isWhitespace) {
                if !paragraph.isEmpty { collector.add(.paragraph, paragraph.joined(separator: "\n")) }
                paragraph.removeAll(keepingCapacity: true)
            } else {
                paragraph.append(line)
            }
        }
        if !paragraph.isEmpty { collector.add(.paragraph, paragraph.joined(separator: "\n")) }
        return collector.blocks
    }
}
