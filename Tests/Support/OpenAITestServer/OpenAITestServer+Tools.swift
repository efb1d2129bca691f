import Foundation

extension OpenAITestServer {
    /// Scripts a model that uses a tool: asked with `tool` on offer and no tool result in the
    /// conversation, it calls `tool` with `arguments`; once a result is in, it answers with the
    /// result's own words and the number the result came with ("[1] The site holds 42 crates." →
    /// "According to the inventory, The site holds 42 crates [1]."). Without the tool on offer it says it cannot look it up.
    /// `asText` writes the call as small local models do when their server does not recognise it:
    /// its JSON in a ```json fence, as the answer's text.
    public func answerWithTool(_ tool: String, arguments: String, asText: Bool = false, path: String = "/v1/chat/completions") {
        handle(path) { request in
            let body = request.json ?? [:]
            let messages = body["messages"] as? [[String: Any]] ?? []
            if let result = messages.last(where: { $0["role"] as? String == "tool" })?["content"] as? String {
                guard let match = result.firstMatch(of: /^\[(\d+)\] (.*)$/.dotMatchesNewlines()) else { return .chatStream(["The tool said: \(result)"]) }
                let words = String(match.2).trimmingCharacters(in: CharacterSet(charactersIn: ". \n"))
                return .chatStream(["According to the inventory, ", words, " [\(match.1)]."])
            }
            let offered = (body["tools"] as? [[String: Any]] ?? []).compactMap { ($0["function"] as? [String: Any])?["name"] as? String }
            if offered.contains(tool) {
                if asText { return .chatStream(["```json\n{\"name\": \"\(tool)\", ", "\"arguments\": \(arguments)}\n```"]) }
                return .toolCallStream([(id: "call_7", name: tool, arguments: arguments)])
            }
            return .chatStream(["I cannot look that up."])
        }
    }
}
