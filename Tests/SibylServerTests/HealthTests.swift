@testable import APIContract
import Foundation
import HummingbirdTesting
import SibylTestSupport
import Testing
import Assistant
import SibylApp
@testable import SibylServer

@Suite(.timeLimit(.minutes(10))) struct HealthTests {
    @Test func healthzAnswersAndTheSpecIsServed() async throws {
        try await withServerFixture { fixture in
            try await fixture.client.execute(uri: "/healthz", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).contains("\"status\":\"ok\""))
            }
            try await fixture.client.execute(uri: "/api/v1/openapi.yaml", method: .get) { response in
                #expect(response.status == .ok)
                #expect(String(buffer: response.body).hasPrefix("openapi: 3.1"))
            }
        }
    }
}

@Suite(.timeLimit(.minutes(10))) struct SpecTests {
    /// Every route the server has is in the document, and the document has no route the server lacks.
    @Test func theDocumentDescribesEveryRoute() async throws {
        let spec = try sibylSpec.get()
        let documented = Set(spec.operationKeys.map { "\($0.method.uppercased()) \($0.path)" })
        #expect(documented.count > 40)
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-spec-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: home) }
        let runtime = try SibylRuntime(environment: ["SIBYL_HOME": home.path])
        let routes = try await withTeardown {
            SibylServer(runtime: runtime, configuration: .init()).router().routes
                .map { "\($0.method.rawValue) \(Self.template($0.path.description))" }
                .filter { !$0.contains(" /v1/") && !WebRoutes.isPage($0.split(separator: " ")[1]) }
        } teardown: {
            await runtime.shutdown()
        }
        for route in routes { #expect(documented.contains(route), "\(route) is not in openapi.yaml") }
        for operation in documented { #expect(routes.contains(operation), "\(operation) is documented but not served") }
    }

    /// `/conversations/:conversationId` as OpenAPI writes it: `/conversations/{conversationId}`.
    static func template(_ path: String) -> String {
        "/" + path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
    }
}

extension SpecTests {
    /// The contract check can fail: a body that breaks the document, or a status it does not declare, is caught.
    @Test func theCheckerCatchesWhatBreaksTheDocument() throws {
        let checker = ContractChecker(spec: try sibylSpec.get())
        let noPersona = Data(#"{"id":"x","mode":"chat","source":"web","createdAt":"2026-01-01T00:00:00Z","updatedAt":"2026-01-01T00:00:00Z"}"#.utf8)
        #expect(!checker.issues(forResponseBody: noPersona, path: "/api/v1/conversations/x", method: "patch", status: 200, contentType: "application/json").isEmpty)
        #expect(!checker.issues(forResponseBody: Data("{}".utf8), path: "/api/v1/conversations", method: "get", status: 418, contentType: "application/json").isEmpty)
        let badEvent = Data("event: delta\ndata: {\"type\": \"delta\", \"text\": 5}\n\n".utf8)
        #expect(!checker.issues(forResponseBody: badEvent, path: "/api/v1/conversations/x/turns", method: "post", status: 200, contentType: "text/event-stream").isEmpty)
    }
}
