/// A source an answer cites: which document, where in it, and the passage itself.
public struct Citation: Sendable, Hashable, Codable {
    /// The number the answer uses for it: `[1]`.
    public var number: Int
    public var documentTitle: String
    public var documentPath: String
    public var page: Int?
    public var headingPath: [String]
    /// The passage the answer was given.
    public var quote: String
    /// The retrieval score it was chosen with.
    public var score: Double

    public init(number: Int, documentTitle: String, documentPath: String, page: Int?, headingPath: [String], quote: String, score: Double) {
        self.number = number
        self.documentTitle = documentTitle
        self.documentPath = documentPath
        self.page = page
        self.headingPath = headingPath
        self.quote = quote
        self.score = score
    }

    /// Page and section in words: "page 3 · Install › Linux".
    public var location: String {
        var parts: [String] = []
        if let page { parts.append("page \(page)") }
        if !headingPath.isEmpty { parts.append(headingPath.joined(separator: " › ")) }
        return parts.joined(separator: " · ")
    }
}
