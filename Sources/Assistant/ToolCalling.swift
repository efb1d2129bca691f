import Foundation
import SibylCore

/// How an answer uses the user's tools (their MCP servers): what the model is told, how a call is
/// made and kept as a numbered source, and which sources a finished answer keeps.
enum ToolCalling {
    /// Rounds of tool calls in one answer; the round after the last answers without tools.
    static let rounds = 4
    /// The most of a tool's result that the model is given and the answer keeps.
    static let resultCharacters = 4000

    static let instruction = """
        You can call tools from the user's tool servers when they help to answer. Each tool result \
        begins with its number in brackets; when your answer uses a result, cite it with that number, like [3].
        """

    /// The messages with the instruction added to the system prompt (or as one, when there is none).
    static func instructed(_ messages: [ChatMessage]) -> [ChatMessage] {
        var messages = messages
        if let first = messages.first, first.role == .system, !first.hasImages {
            messages[0] = .system(first.text + "\n\n" + instruction)
        } else {
            messages.insert(.system(instruction), at: 0)
        }
        return messages
    }

    /// Makes the call the model asked for and returns its result as the source numbered `number`.
    /// A failure (an unknown tool, a server that is gone) is a result too: the model is told, and
    /// answers with what it has.
    static func call(
        _ call: ChatToolCall, offered: [OfferedTool], tools: any ToolProvider, number: Int, announce: (ToolUse) -> Void
    ) async -> Citation {
        let match = offered.first { $0.tool.name == call.name }
        var use = ToolUse(server: match?.server ?? "", name: match?.toolName ?? call.name, arguments: call.arguments)
        announce(use)
        let result: ToolResult
        if match == nil {
            result = ToolResult(text: "There is no tool named \(call.name).", isError: true)
        } else {
            do {
                result = try await tools.call(call.name, arguments: call.arguments)
            } catch {
                result = ToolResult(text: "The tool could not be called: \(ConversationEngine.describe(error))", isError: true)
            }
        }
        use.isError = result.isError
        let text = result.text.count > resultCharacters ? String(result.text.prefix(resultCharacters)) + " …" : result.text
        return Citation(
            number: number, documentTitle: use.title, documentPath: "mcp:\(use.server)/\(use.name)", page: nil, headingPath: [],
            quote: text, score: 1, tool: use
        )
    }

    /// The sources a finished answer keeps: the passages it cites (all of them when it cites
    /// none, as before), every tool call it made, cited or not, so the thread shows what was called,
    /// and the remembered facts it used.
    static func kept(of citations: [Citation], citedIn text: String) -> [Citation] {
        let passages = citations.filter(\.isPassage)
        return Grounding.cited(in: text, from: passages) + citations.filter { !$0.isPassage && ($0.memory == nil || MemoryRecall.isUsed($0, in: text)) }
    }
}

/// Tool calls a model wrote as text instead of as calls: small local models often answer with the
/// call's JSON (`{"name": …, "arguments": {…}}`, in a ```json fence or `<tool_call>` tags) when
/// their server does not recognise it. While tools are on offer, an answer that begins like one is
/// held back until it is known whether it is one.
enum TextToolCalls {
    private static let openings = ["{", "[{", "```json", "```\n{", "<tool_call>"]

    /// Whether an answer beginning with `text` may still turn out to be a call written as text.
    static func mayBeCall(_ text: String) -> Bool {
        let start = String(text.drop { $0.isWhitespace })
        if start.isEmpty { return true }
        return openings.contains { start.hasPrefix($0) || $0.hasPrefix(start) }
    }

    /// The calls `text` consists of, naming tools on offer; nil when it is anything else.
    static func calls(in text: String, offered: Set<String>) -> [ChatToolCall]? {
        var body = text.trimmingCharacters(in: .whitespacesAndNewlines)
        for (open, close) in [("<tool_call>", "</tool_call>"), ("```json", "```"), ("```", "```")] where body.hasPrefix(open) {
            body = String(body.dropFirst(open.count))
            body = body.replacingOccurrences(of: close, with: "\n").replacingOccurrences(of: open, with: "\n")
            break
        }
        body = body.trimmingCharacters(in: .whitespacesAndNewlines)
        // Several calls may come as an array, or as objects one after another (one per tag).
        var objects: [[String: Any]] = []
        if let value = try? JSONSerialization.jsonObject(with: Data(body.utf8)) {
            if let object = value as? [String: Any] { objects = [object] } else if let array = value as? [[String: Any]] { objects = array }
        } else {
            for line in body.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).isEmpty {
                guard let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] else { return nil }
                objects.append(object)
            }
        }
        guard !objects.isEmpty else { return nil }
        var calls: [ChatToolCall] = []
        for (index, object) in objects.enumerated() {
            guard let name = object["name"] as? String, offered.contains(name) else { return nil }
            let arguments = object["arguments"] ?? object["parameters"] ?? [String: Any]()
            let text: String
            if let string = arguments as? String {
                text = string
            } else if JSONSerialization.isValidJSONObject(arguments), let data = try? JSONSerialization.data(withJSONObject: arguments, options: [.sortedKeys]) {
                text = String(decoding: data, as: UTF8.self)
            } else {
                return nil
            }
            calls.append(ChatToolCall(id: "text_call_\(index + 1)", name: name, arguments: text))
        }
        return calls
    }
}
