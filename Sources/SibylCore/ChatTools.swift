/// A tool a chat model may call in an answer: its name, what it does, and the JSON Schema of its
/// arguments, as the OpenAI API's `tools` take them.
public struct ChatTool: Sendable, Hashable {
    /// The name the model calls it by: letters, digits, `_` and `-`, at most 64 characters.
    public var name: String
    public var description: String
    /// The JSON Schema of the arguments (an object schema).
    public var parameters: JSONValue

    public init(name: String, description: String, parameters: JSONValue) {
        self.name = name
        self.description = description
        self.parameters = parameters
    }
}

/// A call to a tool that a chat model asked for.
public struct ChatToolCall: Sendable, Hashable, Codable {
    /// The model's identifier of the call, repeated with its result.
    public var id: String
    public var name: String
    /// The arguments as the model wrote them: JSON text (which a model may get wrong).
    public var arguments: String

    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}

/// What a tool answered: text, and whether it reports a failure.
public struct ToolResult: Sendable, Hashable {
    public var text: String
    public var isError: Bool

    public init(text: String, isError: Bool = false) {
        self.text = text
        self.isError = isError
    }
}

/// A tool as it is offered to a model, with where it comes from, in words for people.
public struct OfferedTool: Sendable, Hashable {
    public var tool: ChatTool
    /// The server that provides it, as the user named it.
    public var server: String
    /// The tool's own name on that server.
    public var toolName: String

    public init(tool: ChatTool, server: String, toolName: String) {
        self.tool = tool
        self.server = server
        self.toolName = toolName
    }
}

/// Tools from outside Sibyl (the MCP servers a user configured) that answers may use.
public protocol ToolProvider: Sendable {
    /// The tools on offer now. A server that cannot be reached offers none (its provider logs why).
    func tools() async -> [OfferedTool]
    /// Calls a tool by the name it was offered under. A tool's own failure is a result with
    /// `isError`; an error thrown means the call could not be made at all.
    func call(_ name: String, arguments: String) async throws -> ToolResult
}
