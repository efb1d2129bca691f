import Assistant
import Foundation
import HummingbirdTesting
import SibylApp
import Testing
@testable import SibylServer

@Suite("Conversations over the API", .timeLimit(.minutes(10)))
struct ConversationRoutesTests {
    @Test func startListSearchRenameExportImportAndDelete() async throws {
        try await withServerFixture { fixture in
            let client = fixture.client
            var ids: [String] = []
            for title in ["Tea notes", "Bike repairs", "Tea shopping"] {
                try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: jsonBody(["title": title, "persona": "concise"])) { response in
                    #expect(response.status == .created)
                    #expect(response.object["persona"] as? String == "concise")
                    #expect(response.object["source"] as? String == "web")
                    ids.append(try #require(response.object["id"] as? String))
                }
            }
            try await client.execute(uri: "/api/v1/conversations?limit=2", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.object["total"] as? Int == 3)
                #expect((response.object["items"] as? [[String: Any]])?.count == 2)
            }
            try await client.execute(uri: "/api/v1/conversations?search=tea", method: .get) { response in
                let titles = (response.object["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
                #expect(Set(titles ?? []) == ["Tea notes", "Tea shopping"])
            }
            try await client.execute(uri: "/api/v1/conversations/\(ids[0])", method: .patch, headers: jsonHeaders, body: jsonBody(["title": "Green tea", "mode": "translator", "translateTo": "French"])) { response in
                #expect(response.status == .ok)
                #expect(response.object["title"] as? String == "Green tea")
                #expect(response.object["mode"] as? String == "translator")
                #expect(response.object["translateTo"] as? String == "French")
            }
            var exported = Data()
            try await client.execute(uri: "/api/v1/conversations/\(ids[0])/export?format=json", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentDisposition]?.contains("attachment") == true)
                exported = Data(buffer: response.body)
            }
            try await client.execute(uri: "/api/v1/conversations/\(ids[0])/export?format=markdown", method: .get) { response in
                #expect(response.text.contains("Green tea"))
            }
            try await client.execute(uri: "/api/v1/conversations/\(ids[0])", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/v1/conversations/\(ids[0])", method: .get) { response in
                #expect(response.status == .notFound)
                #expect(response.errorCode == "not_found")
            }
            try await client.execute(uri: "/api/v1/conversations/import", method: .post, headers: jsonHeaders, body: .init(bytes: exported)) { response in
                #expect(response.status == .created)
                #expect(response.object["id"] as? String == ids[0])
            }
        }
    }

    @Test func theListCarriesAnETagAndAnswers304UntilSomethingChanges() async throws {
        try await withServerFixture { fixture in
            let client = fixture.client
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: jsonBody(["title": "First"])) { _ in }
            var etag = ""
            try await client.execute(uri: "/api/v1/conversations", method: .get) { response in
                #expect(response.status == .ok)
                etag = try #require(response.headers[.eTag])
            }
            try await client.execute(uri: "/api/v1/conversations", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .notModified)
                #expect(response.body.readableBytes == 0)
                #expect(response.headers[.eTag] == etag)
            }
            // Another page is another resource.
            try await client.execute(uri: "/api/v1/conversations?limit=1", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .ok)
            }
            // A change made through any use case shows at once, with a new ETag.
            let second = try await fixture.runtime.conversations.start(NewConversation(source: .cli), title: "Second")
            try await client.execute(uri: "/api/v1/conversations", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .ok)
                #expect(response.object["total"] as? Int == 2)
                #expect(response.headers[.eTag] != etag)
                etag = response.headers[.eTag] ?? ""
            }
            _ = try await fixture.runtime.conversations.update(second.id, title: "Renamed")
            try await client.execute(uri: "/api/v1/conversations", method: .get, headers: [.ifNoneMatch: etag]) { response in
                #expect(response.status == .ok)
                let titles = (response.object["items"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
                #expect(titles == ["Renamed", "First"])
            }
        }
    }

    @Test func badInputGetsAClearErrorAndWritesNothing() async throws {
        try await withServerFixture { fixture in
            let client = fixture.client
            try await client.execute(uri: "/api/v1/conversations/not-a-uuid", method: .get) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: .init(string: "{not json")) { response in
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "invalid_json")
            }
            try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: jsonBody(["persona": "pirate"])) { response in
                #expect(response.status == .notFound)
                #expect((response.object["error"] as? [String: Any])?["message"] as? String == "There is no persona 'pirate'. Known personas: assistant, concise, translator.")
                #expect(((response.object["error"] as? [String: Any])?["remedy"] as? [String: Any])?["action"] as? String == "listPersonas")
            }
            try await client.execute(uri: "/api/v1/conversations/import", method: .post, headers: jsonHeaders, body: .init(string: "{\"format\": \"something else\"}")) { response in
                #expect(response.status == .badRequest)
                #expect(response.errorCode == "invalid_archive")
            }
            try await client.execute(uri: "/api/v1/conversations?limit=0", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            try await client.execute(uri: "/api/v1/conversations", method: .get) { response in
                #expect(response.object["total"] as? Int == 0)
            }
        }
    }
}
