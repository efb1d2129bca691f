import SibylCore
import Testing
@testable import Assistant

/// Tool calls a small local model writes as its answer's text.
struct TextToolCallsTests {
    let offered: Set<String> = ["warehouse_stock_level", "warehouse_list_sites"]

    @Test(arguments: [
        #"{"name": "warehouse_stock_level", "arguments": {"site": "bergen", "item": "jam"}}"#,
        "```json\n{\"name\": \"warehouse_stock_level\", \"arguments\": {\"item\": \"jam\", \"site\": \"bergen\"}}\n```",
        "<tool_call>\n{\"name\": \"warehouse_stock_level\", \"arguments\": {\"item\": \"jam\", \"site\": \"bergen\"}}\n</tool_call>",
        #"{"name": "warehouse_stock_level", "parameters": "{\"item\": \"jam\", \"site\": \"bergen\"}"}"#,
    ])
    func aCallIsReadInEachFormSmallModelsWrite(_ text: String) throws {
        let calls = try #require(TextToolCalls.calls(in: text, offered: offered))
        #expect(calls.map(\.name) == ["warehouse_stock_level"])
        let arguments = try #require(JSONValue(parsing: calls[0].arguments))
        #expect(arguments == .object(["item": .string("jam"), "site": .string("bergen")]))
    }

    @Test func severalCallsComeAsAnArray() throws {
        let calls = try #require(TextToolCalls.calls(in: #"[{"name": "warehouse_list_sites", "arguments": {}}, {"name": "warehouse_stock_level", "arguments": {"item": "jam", "site": "tromso"}}]"#, offered: offered))
        #expect(calls.map(\.name) == ["warehouse_list_sites", "warehouse_stock_level"])
        #expect(Set(calls.map(\.id)).count == 2)
    }

    @Test(arguments: [
        "The Bergen warehouse holds 7 crates.",                              // an answer
        #"{"name": "rm_everything", "arguments": {}}"#,                       // a tool not on offer
        "```json\n{\"site\": \"bergen\"}\n```",                               // JSON, but no call
        #"{"name": "warehouse_stock_level", "arguments": {} } and more words"#, // a call and more
    ])
    func anythingElseIsNoCall(_ text: String) {
        #expect(TextToolCalls.calls(in: text, offered: offered) == nil)
    }

    @Test func onlyWhatMayStartACallIsHeldBack() {
        for start in ["", "  ", "{", "```", "```js", "```json\n{\"na", "<tool", "[{\"name\""] { #expect(TextToolCalls.mayBeCall(start), "\(start)") }
        for start in ["The", "```python\nprint", "[1] The", "<b>"] { #expect(!TextToolCalls.mayBeCall(start), "\(start)") }
    }
}
