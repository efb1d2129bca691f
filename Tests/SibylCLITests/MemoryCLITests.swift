import Foundation
import LocalEngines
import OpenAITestServer
import SibylCore
import TestEvents
import Testing

/// `sibyl memory` end to end: a conversation read for facts (the scripted model proposes them),
/// accepted, recalled by the local MiniLM for a question it bears on, cited as "from your memory",
/// and forgotten.
@Suite(
    .timeLimit(.minutes(10)), .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings" }?.installed == true
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local embeddings are not installed (sibyl models install embeddings)"
    )
)
struct MemoryCLITests {
    /// What the scripted model proposes when asked to read a conversation: one fact the user said,
    /// one they never said (Sibyl must drop it: its quote is in no message of theirs).
    static let proposals = """
    {"facts": [
      {"fact": "The user is vegetarian.", "quote": "I'm vegetarian"},
      {"fact": "The user lives in Paris.", "quote": "I live in Paris"}
    ]}
    """

    /// Streams `answer`; answers a request to read a conversation with `proposals`, any other with a title.
    static func script(_ server: OpenAITestServer, answer: [String]) {
        server.handle(chatPath) { request in
            if request.json?["stream"] as? Bool == true { return .chatStream(answer) }
            return isReading(request) ? .chatCompletion(proposals) : .chatCompletion("Dinner Ideas")
        }
    }

    static func isReading(_ request: RecordedRequest) -> Bool {
        String(decoding: request.body, as: UTF8.self).contains("The user's messages")
    }

    static func systemPrompt(of request: RecordedRequest) -> String {
        let messages = request.json?["messages"] as? [[String: Any]] ?? []
        return messages.filter { $0["role"] as? String == "system" }.compactMap { $0["content"] as? String }.joined(separator: "\n")
    }

    func runner(_ server: OpenAITestServer) throws -> CLIRunner {
        try CLIRunner(server: server, extra: ["SIBYL_ENGINES": EngineLayout().root.path, "SIBYL_EMBEDDINGS_PROVIDER": "local"])
    }

    @Test func aConversationIsReadOnceItsFactIsAcceptedRecalledCitedAndForgotten() async throws {
        try await OpenAITestServer.with { server in
            Self.script(server, answer: ["Try a ratatouille."])
            let cli = try runner(server)
            #expect(try await cli.run(["ask", "I'm vegetarian and cook most evenings. Any ideas for a quick dinner?"]).status == 0)

            let read = try await cli.run(["memory", "read"])
            #expect(read.status == 0, "\(read.stderr)")
            #expect(read.stdout.contains("Read 1 conversation; proposed:"))
            #expect(read.stdout.contains("The user is vegetarian."))
            #expect(!read.stdout.contains("Paris"), "a fact whose quote the user never wrote is dropped")
            #expect(server.requests(to: chatPath).filter(Self.isReading).count == 1)

            // Proposed facts wait: the accepted list is empty, the proposed one names its conversation.
            #expect(try await cli.run(["memory", "list"]).stdout.contains("Nothing remembered yet"))
            let listed = try #require(try await cli.run(["memory", "list", "--proposed", "--json"]).json as? [[String: Any]])
            #expect(listed.count == 1)
            let id = try #require(listed.first?["id"] as? String)
            let conversations = try #require(try await cli.run(["conversations", "list", "--json"]).conversations)
            #expect(listed.first?["conversationId"] as? String == conversations.first?["id"] as? String)
            #expect(listed.first?["messageId"] != nil)

            // Nothing new to read: no second model call.
            #expect(try await cli.run(["memory", "read"]).stdout.contains("No conversation has new messages to read."))
            #expect(server.requests(to: chatPath).filter(Self.isReading).count == 1)

            // Not used while only proposed.
            server.reset()
            Self.script(server, answer: ["A vegetarian chili would suit you."])
            _ = try await cli.run(["ask", "What should I cook for dinner tonight?"])
            let unaccepted = try #require(server.requests(to: chatPath).first { $0.json?["stream"] as? Bool == true })
            #expect(!Self.systemPrompt(of: unaccepted).contains("vegetarian"))

            let accepted = try await cli.run(["memory", "accept", String(id.prefix(6))])
            #expect(accepted.status == 0)
            #expect(accepted.stdout.contains("Accepted"))
            #expect(try await cli.run(["memory", "list"]).stdout.contains("The user is vegetarian."))

            server.reset()
            Self.script(server, answer: ["A vegetarian chili would suit you."])
            let answered = try await cli.run(["ask", "What should I cook for dinner tonight?"])
            #expect(answered.status == 0)
            let asked = try #require(server.requests(to: chatPath).first { $0.json?["stream"] as? Bool == true })
            #expect(Self.systemPrompt(of: asked).contains("The user is vegetarian."))
            #expect(answered.stdout.contains("from your memory"))
            #expect(answered.stdout.contains("The user is vegetarian."))

            // A question about how a thing is done does not bring the memory in.
            server.reset()
            Self.script(server, answer: ["Use sorted()."])
            let impersonal = try await cli.run(["ask", "How do I sort a list in Python?"])
            let sortRequest = try #require(server.requests(to: chatPath).first { $0.json?["stream"] as? Bool == true })
            #expect(!Self.systemPrompt(of: sortRequest).contains("vegetarian"))
            #expect(!impersonal.stdout.contains("from your memory"))

            let forgotten = try await cli.run(["memory", "forget", String(id.prefix(8))])
            #expect(forgotten.stdout.contains("Forgot"))
            #expect(try await cli.run(["memory", "list", "--all"]).stdout.contains("No facts remembered"))
            let again = try await cli.run(["memory", "forget", String(id.prefix(8))])
            #expect(again.status == 1)
            #expect(again.stderr.contains("sibyl memory list --all"))

            server.reset()
            Self.script(server, answer: ["A vegetarian chili would suit you."])
            _ = try await cli.run(["ask", "What should I cook for dinner tonight?"])
            let afterForgetting = try #require(server.requests(to: chatPath).first { $0.json?["stream"] as? Bool == true })
            #expect(!Self.systemPrompt(of: afterForgetting).contains("vegetarian"))
        }
    }

    @Test func factsTheUserWritesAreKeptAndBadOnesRefused() async throws {
        try await OpenAITestServer.with { server in
            let cli = try runner(server)
            let added = try await cli.run(["memory", "add", "My", "daughter", "Mia", "is", "allergic", "to", "peanuts."])
            #expect(added.status == 0)
            #expect(added.stdout.contains("Remembered"))
            let listed = try #require(try await cli.run(["memory", "list", "--json"]).json as? [[String: Any]])
            #expect(listed.first?["text"] as? String == "My daughter Mia is allergic to peanuts.")
            #expect(listed.first?["status"] as? String == "accepted")
            #expect(listed.first?["conversationId"] == nil)

            let empty = try await cli.run(["memory", "add", "  ", "!"])
            #expect(empty.status == 1)
            let long = try await cli.run(["memory", "add", String(repeating: "a", count: MemoryFact.maximumLength + 1)])
            #expect(long.status == 1)
            #expect(long.stderr.contains("\(MemoryFact.maximumLength)"))
            #expect(try await cli.run(["memory", "accept", "zz-not-an-id"]).status == 1)
            #expect(try #require(try await cli.run(["memory", "list", "--all", "--json"]).json as? [[String: Any]]).count == 1)
            #expect(server.requests.isEmpty, "writing, listing and refusing facts ask no model")
        }
    }

    @Test func autoAcceptUsesProposedFactsAtOnce() async throws {
        try await OpenAITestServer.with { server in
            Self.script(server, answer: ["Try a ratatouille."])
            let cli = try runner(server)
            _ = try await cli.run(["ask", "I'm vegetarian. Dinner ideas?"])
            #expect(try await cli.run(["config", "set", "memory.auto_accept", "on"]).status == 0)
            let read = try await cli.run(["memory", "read"])
            #expect(read.stdout.contains("remembered:"))
            #expect(try await cli.run(["memory", "list"]).stdout.contains("The user is vegetarian."))
        }
    }

    /// `sibyl serve` reads a conversation by itself once it has gone quiet (here at once:
    /// memory.quiet_minutes 0), once, and the fact shows in the API.
    @Test func serveReadsQuietConversationsByItself() async throws {
        try await OpenAITestServer.with { server in
            Self.script(server, answer: ["Try a ratatouille."])
            let cli = try runner(server)
            _ = try await cli.run(["ask", "I'm vegetarian. Dinner ideas?"])
            try await cli.withStarted(["serve", "--port", "0"], environment: ["SIBYL_MEMORY_QUIET_MINUTES": "0"]) { running in
                let port = try await ServeCLITests.port(of: running)
                // The page's live stream tells of the memory's changes: once it is open ("ready"),
                // a fact proposed later is told; one proposed before is in the first listing.
                let stream = try CLIRunner.launch(URL(fileURLWithPath: "/usr/bin/curl"), ["-sN", "http://127.0.0.1:\(port)/api/v1/events"], environment: cli.environment)
                let facts = try await withTeardown {
                    try await stream.waitForOutput(containing: "event: ready", timeout: .seconds(300))
                    let listed = try await HTTPCalls.get("http://127.0.0.1:\(port)/api/v1/memory?status=proposed").json as? [[String: Any]] ?? []
                    guard listed.isEmpty else { return listed }
                    try await stream.waitForOutput(containing: "event: memory", timeout: .seconds(600))
                    return try await HTTPCalls.get("http://127.0.0.1:\(port)/api/v1/memory?status=proposed").json as? [[String: Any]] ?? []
                } teardown: {
                    _ = await stream.stop()
                }
                #expect(facts.map { $0["text"] as? String } == ["The user is vegetarian."])
            }
            // Read once: later looks (every 5 s at quiet 0) find nothing new in it.
            #expect(server.requests(to: chatPath).filter(Self.isReading).count == 1)
        }
    }
}
