import Accounts
import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import SibylServer

/// On a server with accounts each account may bring its own API key: its requests use it before
/// the shared key administrators set, and no one else sees or uses it.
@Suite("API keys per account", .timeLimit(.minutes(10)))
struct AccountKeysTests {
    @Test func eachAccountMayBringItsOwnKey() async throws {
        let sharedKey = "sk-shared-AAAA0123456789abcdefSHARED"
        let bosKey = "sk-bo-BBBB0123456789abcdefBOSOWN"
        try await AuthRoutesTests.withAccounts { fixture, accounts in
            fixture.model.handle(chatPath) { _ in .chatStream(["hello"]) }
            let client = fixture.client
            let asAda: HTTPFields = [.authorization: "Bearer \(try await accounts.issueToken(accountID: try accounts.account(named: "ada").id, label: "a", readOnly: false).secret)", .contentType: "application/json"]
            let asBo: HTTPFields = [.authorization: "Bearer \(try await accounts.issueToken(accountID: try accounts.account(named: "bo").id, label: "b", readOnly: false).secret)", .contentType: "application/json"]

            /// Answers one question as `headers` and returns the key the provider was called with.
            func keyUsed(_ headers: HTTPFields) async throws -> String? {
                let conversation = try await client.execute(uri: "/api/v1/conversations", method: .post, headers: headers, body: jsonBody([:])) { response in
                    try #require(response.object["id"] as? String)
                }
                try await client.execute(uri: "/api/v1/conversations/\(conversation)/turns", method: .post, headers: headers, body: jsonBody(["text": "hi", "stream": false])) { response in
                    #expect(response.object["status"] as? String == "complete", "\(response.text)")
                }
                return fixture.model.requests(to: chatPath).last?.header("Authorization")
            }

            try await client.execute(uri: "/api/v1/keys/openai?scope=shared", method: .put, headers: asAda, body: jsonBody(["key": sharedKey])) { response in
                #expect(response.status == .ok)
                #expect(response.object["scope"] as? String == "shared")
            }
            try await client.execute(uri: "/api/v1/keys/openai?scope=shared", method: .put, headers: asBo, body: jsonBody(["key": bosKey])) { response in
                #expect(response.status == .forbidden)
                #expect(response.errorCode == "admin_only")
            }
            try await client.execute(uri: "/api/v1/keys/openai?scope=shared", method: .delete, headers: asBo) { #expect($0.status == .forbidden) }
            try await client.execute(uri: "/api/v1/keys/openai?scope=everyone", method: .put, headers: asBo, body: jsonBody(["key": bosKey])) { response in
                #expect(response.status == .badRequest)
            }
            #expect(try await keyUsed(asBo) == "Bearer \(sharedKey)", "without a key of its own an account uses the shared one")

            try await client.execute(uri: "/api/v1/keys/openai", method: .put, headers: asBo, body: jsonBody(["key": bosKey])) { response in
                #expect(response.status == .ok)
                #expect(response.object["scope"] as? String == "own")
                #expect(!response.text.contains(bosKey))
            }
            #expect(try await keyUsed(asBo) == "Bearer \(bosKey)", "an account's own key comes first")
            #expect(try await keyUsed(asAda) == "Bearer \(sharedKey)", "another account's key is never used for anyone else")

            try await client.execute(uri: "/api/v1/keys", method: .get, headers: asBo) { response in
                let keys = response.array
                #expect(keys.contains { $0["scope"] as? String == "own" && ($0["masked"] as? String)?.hasSuffix(String(bosKey.suffix(4))) == true })
                #expect(keys.contains { $0["scope"] as? String == "shared" && $0["masked"] as? String == "•••" }, "a user learns a shared key is set, not which")
                #expect(!response.text.contains(String(sharedKey.suffix(4))) && !response.text.contains(bosKey))
            }
            try await client.execute(uri: "/api/v1/keys", method: .get, headers: asAda) { response in
                let keys = response.array
                #expect(keys.count == 1, "an administrator sees the shared keys and their own, not another account's: \(response.text)")
                #expect(keys.first?["scope"] as? String == "shared")
                #expect((keys.first?["masked"] as? String)?.hasSuffix(String(sharedKey.suffix(4))) == true)
            }
            try await client.execute(uri: "/api/v1/providers/check", method: .get, headers: asBo) { response in
                #expect(response.text.contains("your key 'openai'"), "\(response.text.prefix(400))")
            }

            try await client.execute(uri: "/api/v1/keys/openai", method: .delete, headers: asBo) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/v1/keys/openai", method: .delete, headers: asBo) { #expect($0.status == .notFound) }
            #expect(try await keyUsed(asBo) == "Bearer \(sharedKey)", "removing one's own key falls back to the shared one")

            // Both keys are sealed: neither file holds either key in the clear.
            let bo = try await accounts.account(named: "bo")
            for file in [fixture.home.appendingPathComponent("secrets.json"), fixture.runtime.paths.accountHome(id: bo.id).appendingPathComponent("secrets.json")] {
                let data = try Data(contentsOf: file)
                #expect(data.range(of: Data(sharedKey.utf8)) == nil && data.range(of: Data(bosKey.utf8)) == nil, "\(file.path)")
            }
        }
    }
}
