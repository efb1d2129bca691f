import Foundation
import MCP
import SibylApp
import SibylTestSupport
import Testing
@testable import SibylServer

/// The `/mcp` session table: a session belongs to the account that started it, and an account
/// keeps only so many.
@Suite(.timeLimit(.minutes(10))) struct MCPSessionsTests {
    static let headers = ["Accept": "application/json, text/event-stream", "Content-Type": "application/json", "MCP-Protocol-Version": "2025-06-18"]

    static func initialize() -> MCP.HTTPRequest {
        let body = #"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"test","version":"1"}}}"#
        return MCP.HTTPRequest(method: "POST", headers: headers, body: Data(body.utf8), path: "/mcp")
    }

    @Test func aSessionAnswersOnlyItsOwnerAndEachOwnerKeepsSoMany() async throws {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-mcp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = try SibylRuntime(environment: ["SIBYL_HOME": home.path])
        try await withTeardown {
            let sessions = MCPSessions(perOwner: 2)
            let started = await sessions.handle(Self.initialize(), owner: "ada") { runtime }
            #expect(started.statusCode == 200)
            let id = try #require(started.headers.first { $0.key.lowercased() == "mcp-session-id" }?.value)

            // Another account naming Ada's session is told it does not exist; Ada is answered.
            var headers = Self.headers
            headers["MCP-Session-Id"] = id
            let list = MCP.HTTPRequest(method: "POST", headers: headers, body: Data(#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.utf8), path: "/mcp")
            #expect(await sessions.handle(list, owner: "bo") { runtime }.statusCode == 404)
            #expect(await sessions.handle(list, owner: "ada") { runtime }.statusCode == 200)

            // Without a session, only an initialize is taken.
            let stray = MCP.HTTPRequest(method: "POST", headers: Self.headers, body: Data(#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#.utf8), path: "/mcp")
            #expect(await sessions.handle(stray, owner: "ada") { runtime }.statusCode == 400)

            // A third session of Ada's ends her least recently used one; Bo's are his own.
            _ = await sessions.handle(Self.initialize(), owner: "ada") { runtime }
            _ = await sessions.handle(Self.initialize(), owner: "bo") { runtime }
            _ = await sessions.handle(Self.initialize(), owner: "ada") { runtime }
            #expect(await sessions.count == 3)
            #expect(await sessions.handle(list, owner: "ada") { runtime }.statusCode == 404, "the oldest of Ada's three ended")
            await sessions.endAll(of: "ada")
            #expect(await sessions.count == 1)
            await sessions.endAll()
        } teardown: {
            await runtime.shutdown()
        }
    }
}
