import Foundation
import HTTPTypes
import HummingbirdTesting
import SibylConfig
import Testing

/// A turn over the HTTP API that calls a tool of an MCP server (scripts/mcp/tool_server.py, written
/// with the official MCP Python SDK, started by Sibyl): the call and its result stream as events
/// the spec describes, and the saved answer keeps the call as the source it cites.
@Suite(.enabled(if: ProcessInfo.processInfo.environment["SIBYL_MCP_PYTHON"] != nil, "the MCP SDK environment (scripts/mcp/setup.sh) is missing"))
struct ToolTurnRoutesTests {
    static var servers: String {
        let python = ProcessInfo.processInfo.environment["SIBYL_MCP_PYTHON"] ?? "python3"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/mcp/tool_server.py").path
        return "warehouse=\(python) \(script)"
    }

    @Test func aTurnStreamsItsToolCallAndKeepsItAsACitedSource() async throws {
        try await withServerFixture(environment: ["SIBYL_TOOLS": "on", "SIBYL_TOOLS_SERVERS": Self.servers, "SIBYL_TOOLS_TIMEOUT": "600"]) { fixture in
            fixture.model.answerWithTool("warehouse_stock_level", arguments: #"{"item": "cloudberry jam", "site": "bergen"}"#)
            let id = try await TurnRoutesTests.conversation(fixture.client)
            try await fixture.client.execute(
                uri: "/api/v1/conversations/\(id)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "Cloudberry jam in Bergen?"])
            ) { response in
                #expect(response.status == .ok)
                let all = events(in: response.text)
                #expect(all.map(\.name) == ["started", "toolCalled", "toolAnswered", "delta", "delta", "delta", "usage", "finished", "titled"])
                let called = try #require(all.first { $0.name == "toolCalled" }?.json?["tool"] as? [String: Any])
                #expect(called["server"] as? String == "warehouse")
                #expect(called["name"] as? String == "stock_level")
                #expect(called["arguments"] as? String == #"{"item": "cloudberry jam", "site": "bergen"}"#)
                let answered = try #require(all.first { $0.name == "toolAnswered" }?.json?["citation"] as? [String: Any])
                #expect(answered["number"] as? Int == 1)
                #expect(answered["quote"] as? String == "The Bergen warehouse, Bryggen 3 holds 7 crates of cloudberry jam.")
                let finished = try #require(all.first { $0.name == "finished" }?.json?["message"] as? [String: Any])
                #expect((finished["text"] as? String)?.contains("7 crates of cloudberry jam [1]") == true, "\(finished)")
            }
            try await fixture.client.execute(uri: "/api/v1/conversations/\(id)/messages", method: .get) { response in
                let answer = try #require(response.array.last)
                let citation = try #require((answer["citations"] as? [[String: Any]])?.first)
                #expect((citation["tool"] as? [String: Any])?["name"] as? String == "stock_level")
                #expect(citation["document"] as? String == "warehouse › stock_level")
            }
        }
    }

    @Test func theServersAreListedAndTheirCommandsAreNotSetOverHTTP() async throws {
        try await withServerFixture(environment: ["SIBYL_TOOLS_SERVERS": Self.servers, "SIBYL_TOOLS_TIMEOUT": "600"]) { fixture in
            try await fixture.client.execute(uri: "/api/v1/tools", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.object["enabled"] as? Bool == false)
                let server = try #require((response.object["servers"] as? [[String: Any]])?.first)
                #expect(server["name"] as? String == "warehouse")
                #expect(server["kind"] as? String == "command")
                #expect((server["tools"] as? [[String: Any]])?.compactMap { $0["name"] as? String }.sorted() == ["broken", "environment_names", "list_sites", "stock_level"])
            }
            // A browser may turn tools on, but not say which commands the server runs.
            try await fixture.client.execute(uri: "/api/v1/settings/tools.enabled", method: .put, headers: jsonHeaders, body: jsonBody(["value": "on"])) { response in
                #expect(response.status == .ok)
            }
            for method in [HTTPRequest.Method.put, .delete] {
                try await fixture.client.execute(
                    uri: "/api/v1/settings/tools.servers", method: method, headers: jsonHeaders, body: method == .put ? jsonBody(["value": "evil=rm -rf /"]) : nil
                ) { response in
                    #expect(response.status == .forbidden)
                    #expect(errorCode(in: response.text) == "machine_only")
                }
            }
            #expect(fixture.runtime.settings[.toolsServers].servers.map(\.name) == ["warehouse"])
        }
    }
}
