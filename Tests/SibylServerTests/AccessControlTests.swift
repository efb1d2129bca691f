import Accounts
@testable import APIContract
import Foundation
import HTTPTypes
import HummingbirdTesting
import LocalEngines
import Testing
@testable import SibylServer

/// Two accounts on one server: the second sees nothing of the first through any route of the API
/// document (the list is generated from it, so a new route cannot escape), search, citations,
/// exports, files or the OpenAI-compatible endpoints.
@Suite(
    "Access control between accounts", .timeLimit(.minutes(10)),
    .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings" }?.installed == true
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local embeddings are not installed"
    )
)
struct AccessControlTests {
    /// Path parameters that name shared things rather than an account's data.
    static let sharedParameters: Set<String> = ["key", "name:keys", "model"]

    @Test func aSecondAccountSeesNothingOfTheFirst() async throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + Array(repeating: 0, count: 32))
        let accounts = try Accounts.inMemory()
        let ada = try await accounts.add(name: "ada", password: AuthRoutesTests.password, role: .admin)
        let bo = try await accounts.add(name: "bo", password: AuthRoutesTests.password, role: .user)
        let adaToken = try await accounts.issueToken(accountID: ada.id, label: "a", readOnly: false).secret
        let boToken = try await accounts.issueToken(accountID: bo.id, label: "b", readOnly: false).secret
        try await withServerFixture(environment: KnowledgeAndMediaRoutesTests.local, accounts: accounts) { fixture in
            fixture.model.handle(chatPath) { _ in .chatStream(["It is violet-harbor-42 [1]."]) }
            fixture.model.handle("/v1/images/generations") { _ in .json(object: ["created": 1, "data": [["b64_json": png.base64EncodedString()]]]) }
            let client = fixture.client
            let asAda: HTTPFields = [.authorization: "Bearer \(adaToken)", .contentType: "application/json"]
            let asBo: HTTPFields = [.authorization: "Bearer \(boToken)", .contentType: "application/json"]

            // Ada's data: a conversation with an answer, an image, a document, a persona.
            let conversation = try await client.execute(uri: "/api/v1/conversations", method: .post, headers: asAda, body: jsonBody(["title": "Ada's secret plans"])) { response in
                try #require(response.object["id"] as? String)
            }
            try await client.execute(uri: "/api/v1/conversations/\(conversation)/turns", method: .post, headers: asAda, body: jsonBody(["text": "What is the wifi password?", "stream": false])) { response in
                #expect(response.status == .ok)
            }
            let message = try await client.execute(uri: "/api/v1/conversations/\(conversation)/messages", method: .get, headers: asAda) { response in
                try #require(response.array.first?["id"] as? String)
            }
            let image = try await client.execute(uri: "/api/v1/images", method: .post, headers: asAda, body: jsonBody(["prompt": "a fox"])) { response in
                try #require((response.object["images"] as? [[String: Any]])?.first?["id"] as? String)
            }
            var form = MultipartBody()
            form.file("files", filename: "handbook.md", contentType: "text/markdown", KnowledgeAndMediaRoutesTests.handbook)
            var adaForm = form.headers
            adaForm[.authorization] = "Bearer \(adaToken)"
            try await client.execute(uri: "/api/v1/documents", method: .post, headers: adaForm, body: form.buffer) { #expect($0.status == .ok) }
            let document = try await client.execute(uri: "/api/v1/documents", method: .get, headers: asAda) { response in
                try #require(response.array.first?["id"] as? Int)
            }
            try await client.execute(uri: "/api/v1/personas/adas-own", method: .put, headers: asAda, body: jsonBody(["systemPrompt": "Ada's private prompt"])) { #expect($0.status == .ok) }
            let fact = try await client.execute(uri: "/api/v1/memory", method: .post, headers: asAda, body: jsonBody(["text": "Ada keeps the violet-harbor-42 plan."])) { response in
                try #require(response.object["id"] as? String)
            }

            // Every route that takes an id, with Ada's ids, as Bo: 404, never the data.
            let values = [
                "conversationId": conversation, "messageId": message, "attachmentId": image, "imageId": image,
                "documentId": String(document), "name": "adas-own", "id": fact,
            ]
            let spec = try sibylSpec.get()
            var checked: [String] = []
            for operation in spec.operationKeys where operation.path.hasPrefix("/api/v1/") && operation.path.contains("{") {
                // Shared settings and keys, the accounts themselves (administrators only, tested apart) and one's own sign-in.
                if ["/api/v1/settings", "/api/v1/keys", "/api/v1/auth/", "/api/v1/users"].contains(where: operation.path.hasPrefix) { continue }
                var uri = operation.path
                for (name, value) in values { uri = uri.replacingOccurrences(of: "{\(name)}", with: value) }
                #expect(!uri.contains("{"), "\(operation): a path parameter this test does not fill")
                let method = HTTPRequest.Method(operation.method.uppercased())!
                if method == .put { continue }  // PUT personas/{name} makes Bo's own persona: checked below
                // A body every route reads: a turn's text, a new name (collections).
                let body = method == .get || method == .delete ? nil : jsonBody(["text": "hi", "stream": false, "name": "taken-by-bo"])
                try await client.execute(uri: uri, method: method, headers: asBo, body: body) { response in
                    #expect(response.status == .notFound, "\(method) \(uri) as another account answered \(response.status): \(response.text.prefix(200))")
                    #expect(!response.text.contains("Ada") && !response.text.contains("violet-harbor"), "\(method) \(uri) leaked data")
                }
                checked.append("\(method) \(operation.path)")
            }
            // Bo's deletes and changes reached nothing of Ada's.
            try await client.execute(uri: "/api/v1/conversations/\(conversation)", method: .get, headers: asAda) { response in
                #expect((response.object["conversation"] as? [String: Any])?["title"] as? String == "Ada's secret plans")
                #expect((response.object["messages"] as? [Any])?.count == 2, "Bo's turn and retry attempts added nothing")
            }
            try await client.execute(uri: "/api/v1/documents/\(document)", method: .get, headers: asAda) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/personas/adas-own", method: .get, headers: asAda) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/memory", method: .get, headers: asAda) { response in
                #expect(response.array.map { $0["id"] as? String } == [fact], "Bo's forgetting reached nothing of Ada's memory")
            }
            print("[access] routes with an id checked as another account: \(checked.count): \(checked.joined(separator: ", "))")
            #expect(checked.count >= 15)

            // Listings, search, personas and the OpenAI-compatible endpoints hold nothing of Ada's.
            for uri in ["/api/v1/conversations", "/api/v1/memory", "/api/v1/documents", "/api/v1/images", "/api/v1/logs", "/api/v1/collections", "/api/v1/documents/failures"] {
                try await client.execute(uri: uri, method: .get, headers: asBo) { response in
                    #expect(response.status == .ok, "\(uri)")
                    #expect(!response.text.contains("Ada") && !response.text.contains("handbook") && !response.text.contains(conversation), "\(uri) leaked: \(response.text.prefix(300))")
                }
            }
            try await client.execute(uri: "/api/v1/search?q=wifi%20password", method: .get, headers: asBo) { response in
                #expect(response.status == .ok)
                #expect(response.array.isEmpty, "search reached another account's documents")
            }
            try await client.execute(uri: "/api/v1/personas", method: .get, headers: asBo) { response in
                #expect(!response.text.contains("adas-own"))
            }
            try await client.execute(uri: "/api/v1/personas/adas-own", method: .put, headers: asBo, body: jsonBody(["systemPrompt": "Bo's prompt"])) { #expect($0.status == .ok) }
            try await client.execute(uri: "/api/v1/personas/adas-own", method: .get, headers: asAda) { response in
                #expect(response.object["systemPrompt"] as? String == "Ada's private prompt", "Bo's persona of the same name is Bo's own")
            }
            try await client.execute(uri: "/v1/models", method: .get, headers: asBo) { response in
                #expect(response.status == .ok)
                #expect(response.text.contains("sibyl-adas-own"), "Bo made a persona of that name too")
            }
            let completion: [String: Any] = ["model": "sibyl-assistant-docs", "messages": [["role": "user", "content": "What is the staff wifi password at the Kestrel Lane office?"]]]
            try await client.execute(uri: chatPath, method: .post, headers: asBo, body: jsonBody(completion)) { response in
                #expect(response.status == .ok)
                #expect(!response.text.contains("handbook") && !response.text.contains("Staff handbook"), "a citation from another account's documents")
            }
            // The accounts' data are apart on disk too, and the local user's data directory holds none of it.
            let homes = try FileManager.default.contentsOfDirectory(atPath: fixture.runtime.paths.accountHomes.path)
            #expect(Set(homes) == [ada.id, bo.id])
            await #expect(try fixture.runtime.conversations.list(limit: 10).items.isEmpty)
        }
    }
    /// Upload and collection names that try to leave their folder land inside it.
    @Test func uploadNamesCannotLeaveTheirFolder() async throws {
        try await withServerFixture(environment: KnowledgeAndMediaRoutesTests.local) { fixture in
            let escape = "sibyl-escape-\(UUID().uuidString)"
            var form = MultipartBody()
            form.field("collection", "../../\(escape)-collection")
            form.file("files", filename: "../../\(escape).md", contentType: "text/markdown", KnowledgeAndMediaRoutesTests.handbook)
            form.file("files", filename: "/tmp/\(escape)-absolute.md", contentType: "text/markdown", Data("# Absolute\n\nA file that wanted to be in /tmp.\n".utf8))
            form.file("files", filename: "..\\..\\\(escape)-windows.md", contentType: "text/markdown", Data("# Windows\n\nA file with backslashes.\n".utf8))
            try await fixture.client.execute(uri: "/api/v1/documents", method: .post, headers: form.headers, body: form.buffer) { response in
                #expect(response.status == .ok)
                #expect((events(in: response.text).last?.json?["added"] as? [Any])?.count == 3)
            }
            let uploads = fixture.runtime.dataPaths.uploadedDocuments
            let kept = FileManager.default.enumerator(at: uploads, includingPropertiesForKeys: nil)?.compactMap { ($0 as? URL)?.lastPathComponent } ?? []
            #expect(Set(kept) == ["\(escape)-collection", "\(escape).md", "\(escape)-absolute.md", "\(escape)-windows.md"])
            for outside in [fixture.home.deletingLastPathComponent().appendingPathComponent("\(escape).md"), URL(fileURLWithPath: "/tmp/\(escape)-absolute.md"), fixture.home.appendingPathComponent("\(escape).md")] {
                #expect(!FileManager.default.fileExists(atPath: outside.path), "\(outside.path) was written")
            }
        }
    }
}
