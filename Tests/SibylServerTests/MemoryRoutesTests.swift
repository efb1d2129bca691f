import Foundation
import HummingbirdTesting
import LocalEngines
import Testing
@testable import SibylServer

/// The memory over the API (each answer checked against the API document): write, list, accept,
/// forget, refuse, and an answer that used a fact cites it.
@Suite(
    "The memory over the API", .timeLimit(.minutes(10)),
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings" }?.installed == true
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local embeddings are not installed"
    )
)
struct MemoryRoutesTests {
    @Test func factsAreWrittenListedRefusedAndForgotten() async throws {
        try await withServerFixture { fixture in
            let client = fixture.client
            try await client.execute(uri: "/api/v1/memory", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.array.isEmpty)
            }
            let id = try await client.execute(uri: "/api/v1/memory", method: .post, headers: jsonHeaders, body: jsonBody(["text": "  I  cycle to work.  "])) { response in
                #expect(response.status == .created)
                #expect(response.object["text"] as? String == "I cycle to work.")
                #expect(response.object["status"] as? String == "accepted")
                #expect(response.object["conversationId"] == nil)
                return try #require(response.object["id"] as? String)
            }
            try await client.execute(uri: "/api/v1/memory?status=accepted", method: .get) { response in
                #expect(response.array.compactMap { $0["id"] as? String } == [id])
            }
            try await client.execute(uri: "/api/v1/memory?status=proposed", method: .get) { response in
                #expect(response.array.isEmpty)
            }
            try await client.execute(uri: "/api/v1/memory?status=maybe", method: .get) { response in
                #expect(response.status == .badRequest)
            }
            for text in ["   ", String(repeating: "x", count: 501)] {
                try await client.execute(uri: "/api/v1/memory", method: .post, headers: jsonHeaders, body: jsonBody(["text": text])) { response in
                    #expect(response.status == .badRequest, "\(text.prefix(10))")
                }
            }
            // Accepting a fact already accepted leaves it as it is; the start of an id is enough.
            try await client.execute(uri: "/api/v1/memory/\(id.prefix(8))/accept", method: .post) { response in
                #expect(response.status == .ok)
                #expect(response.object["id"] as? String == id)
            }
            try await client.execute(uri: "/api/v1/memory/\(UUID().uuidString.lowercased())/accept", method: .post) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/v1/memory/\(id)", method: .delete) { response in
                #expect(response.status == .noContent)
            }
            try await client.execute(uri: "/api/v1/memory/\(id)", method: .delete) { response in
                #expect(response.status == .notFound)
            }
            try await client.execute(uri: "/api/v1/memory", method: .get) { response in
                #expect(response.array.isEmpty)
            }
        }
    }

    @Test func anAnswerThatUsedAFactCitesItAndOneThatDidNotDoesNot() async throws {
        try await withServerFixture(environment: KnowledgeAndMediaRoutesTests.local) { fixture in
            let client = fixture.client
            let fact = try await client.execute(uri: "/api/v1/memory", method: .post, headers: jsonHeaders, body: jsonBody(["text": "The user is vegetarian."])) { response in
                try #require(response.object["id"] as? String)
            }
            let conversation = try await client.execute(uri: "/api/v1/conversations", method: .post, headers: jsonHeaders, body: jsonBody(["title": "Dinner"])) { response in
                try #require(response.object["id"] as? String)
            }
            fixture.model.handle(chatPath) { _ in .chatStream(["A vegetarian chili would suit you."]) }
            try await client.execute(uri: "/api/v1/conversations/\(conversation)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "What should I cook for dinner tonight?", "stream": false])) { response in
                #expect(response.object["status"] as? String == "complete")
                let citations = response.object["citations"] as? [[String: Any]] ?? []
                #expect(citations.count == 1)
                #expect(citations.first?["memory"] as? String == fact)
                #expect(citations.first?["quote"] as? String == "The user is vegetarian.")
            }
            let asked = try #require(fixture.model.requests(to: chatPath).last)
            #expect(String(decoding: asked.body, as: UTF8.self).contains("The user is vegetarian."))

            // Forgotten, it is gone from the answer that cited it too.
            try await client.execute(uri: "/api/v1/memory/\(fact)", method: .delete) { #expect($0.status == .noContent) }
            try await client.execute(uri: "/api/v1/conversations/\(conversation)/messages", method: .get) { response in
                let answer = try #require(response.array.last)
                #expect(answer["text"] as? String == "A vegetarian chili would suit you.")
                let citations = answer["citations"] as? [Any]
                #expect(citations == nil || citations?.isEmpty == true)
                #expect(!response.text.contains(fact))
            }
            try await client.execute(uri: "/api/v1/memory", method: .post, headers: jsonHeaders, body: jsonBody(["text": "The user is vegetarian."])) { #expect($0.status == .created) }

            // Given the fact, an answer that says nothing of it does not cite it.
            fixture.model.handle(chatPath) { _ in .chatStream(["Anything you like."]) }
            try await client.execute(uri: "/api/v1/conversations/\(conversation)/turns", method: .post, headers: jsonHeaders, body: jsonBody(["text": "What should I eat for lunch?", "stream": false])) { response in
                #expect(response.object["status"] as? String == "complete")
                #expect((response.object["citations"] as? [[String: Any]] ?? []).isEmpty)
            }
            let given = try #require(fixture.model.requests(to: chatPath).last)
            #expect(String(decoding: given.body, as: UTF8.self).contains("The user is vegetarian."), "a question about the asker is given the fact")
        }
    }
}
