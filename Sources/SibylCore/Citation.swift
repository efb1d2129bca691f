public import Foundation

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
    /// When the source is a tool's result rather than a passage: the call that gave it.
    public var tool: ToolUse?
    /// When the source is a fact from the user's memory: the fact's id (its text is the quote).
    public var memory: UUID?

    public init(number: Int, documentTitle: String, documentPath: String, page: Int?, headingPath: [String], quote: String, score: Double, tool: ToolUse? = nil, memory: UUID? = nil) {
        self.tool = tool
        self.memory = memory
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

extension Citation {
    /// A fact from the user's memory that the answer was given, with how relevant it was found.
    public static func remembered(_ fact: MemoryFact, number: Int, score: Double) -> Citation {
        Citation(number: number, documentTitle: "Your memory", documentPath: "", page: nil, headingPath: [], quote: fact.text, score: score, memory: fact.id)
    }

    /// Whether the source is a passage of a document (not a tool's result or a remembered fact).
    public var isPassage: Bool { tool == nil && memory == nil }
}

/// A call an answer made to a tool (of an MCP server), kept with the result it cites.
public struct ToolUse: Sendable, Hashable, Codable {
    /// The server, as the user named it.
    public var server: String
    /// The tool's name on that server.
    public var name: String
    /// The arguments, as JSON text.
    public var arguments: String
    /// Whether the tool reported a failure (its result then says what).
    public var isError: Bool

    public init(server: String, name: String, arguments: String, isError: Bool = false) {
        self.server = server
        self.name = name
        self.arguments = arguments
        self.isError = isError
    }
    /// The tool in words: `weather › forecast` (its name alone when its server is unknown).
    public var title: String {
        server.isEmpty ? name : "\(server) › \(name)"
    }
}
