import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalEngines
import OpenAITestServer
import SibylTestSupport
import TestDatabase
import Testing

/// Two `sibyl serve` instances with data directories of their own on one PostgreSQL, as two
/// machines behind a load balancer would run: they start at the same moment on an empty database,
/// and a document uploaded through one is searchable through the other at once.
@Suite(
    .timeLimit(.minutes(30)), .serialized,
    .enabled(
        if: TestDatabase.url != nil && EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings" }?.installed == true,
        "no test PostgreSQL (SIBYL_TEST_DATABASE_URL) or the local embeddings are not installed"
    )
)
struct SharedDatabaseTests {
    static func instance(database: String, model: OpenAITestServer? = nil) throws -> CLIRunner {
        var cli = try CLIRunner(server: model, extra: ["SIBYL_EMBEDDINGS_PROVIDER": "local", "SIBYL_DATABASE_URL": database, "SIBYL_TITLES": "first-words"])
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        return cli
    }

    static func get(_ url: String) async throws -> (status: Int, json: Any?) {
        try await HTTPCalls.get(url)
    }

    /// Runs `body` with both instances started together (and their API base URLs), and stops both
    /// afterwards whatever happens. A watchdog ends them, saying what they were doing, should the
    /// test hang: a ceiling on their exits, which come when the test is over.
    static func withBoth(_ first: CLIRunner, _ second: CLIRunner, _ body: ([CLIRunner.Running], [String]) async throws -> Void) async throws {
        try await first.withStarted(["serve", "--port", "0"]) { one in
            try await second.withStarted(["serve", "--port", "0"]) { two in
                let servers = [one, two]
                let watchdog = Task {
                    let deadline = ContinuousClock.now + .seconds(1200)
                    for server in servers {
                        do {
                            try await server.exitStatus.wait(for: "the end of the test", within: max(deadline - .now, .zero)) { $0 != nil }
                        } catch is WaitedInVain {
                            for server in servers {
                                print("[shared] still running after 20 minutes; server \(server.process.processIdentifier) said:\n\(server.stderr.text)")
                                kill(server.process.processIdentifier, SIGKILL)
                            }
                            return
                        } catch {
                            return
                        }
                    }
                }
                defer { watchdog.cancel() }
                var bases: [String] = []
                for server in servers { bases.append("http://127.0.0.1:\(try await ServeCLITests.port(of: server))/api/v1") }
                print("[shared] both instances listen: \(bases)")
                try await body(servers, bases)
            }
        }
    }

    @Test func twoInstancesStartTogetherAndShareDocumentsAtOnce() async throws {
        try await TestDatabase.with { url in
            let first = try Self.instance(database: url.connectionString)
            let second = try Self.instance(database: url.connectionString)
            // Both at the same moment, on an empty database: one migrates, the other waits for it.
            try await Self.withBoth(first, second) { servers, bases in
                let (one, two) = (bases[0], bases[1])

                let handbook = """
                    # Staff handbook

                    ## Offices

                    The Kestrel Lane office is open from 8:00 to 18:00. The staff wifi password at the Kestrel Lane office is violet-harbor-42.

                    ## Facilities

                    Printers are on the second floor next to the kitchen.
                    """
                #expect(try await HTTPCalls.upload(base: one, files: [("handbook.md", handbook)]) == 200)
                print("[shared] uploaded through the first")

                // Through the other instance, straight away: listed, and found by words and by meaning.
                let listed = try await Self.get("\(two)/documents")
                #expect((listed.json as? [[String: Any]])?.count == 1, "\(String(describing: listed.json))")
                for mode in ["lexical", "vector", "hybrid"] {
                    let found = try await Self.get("\(two)/search?q=wifi%20password%20Kestrel%20Lane&mode=\(mode)")
                    let passages = found.json as? [[String: Any]] ?? []
                    #expect(found.status == 200)
                    #expect((passages.first?["text"] as? String)?.contains("violet-harbor-42") == true, "\(mode): \(passages)")
                }
                // Neither instance kept the documents in its own directory.
                #expect(!FileManager.default.fileExists(atPath: first.home.appendingPathComponent("knowledge.sqlite").path))
                #expect(!FileManager.default.fileExists(atPath: second.home.appendingPathComponent("knowledge.sqlite").path))

                // Removed through the second, gone from the first.
                let id = try #require((listed.json as? [[String: Any]])?.first?["id"])
                var remove = URLRequest(url: URL(string: "\(two)/documents/\(id)")!, timeoutInterval: 600)
                remove.httpMethod = "DELETE"
                _ = try await URLSession.shared.data(for: remove)
                #expect((try await Self.get("\(one)/documents").json as? [[String: Any]])?.isEmpty == true)

                // A setting changed through one instance applies on the other without a restart.
                var change = URLRequest(url: URL(string: "\(one)/settings/docs.passages")!, timeoutInterval: 600)
                change.httpMethod = "PUT"
                change.setValue("application/json", forHTTPHeaderField: "Content-Type")
                change.httpBody = Data(#"{"value": "4"}"#.utf8)
                let (_, changed) = try await URLSession.shared.data(for: change)
                #expect((changed as? HTTPURLResponse)?.statusCode == 200)
                // The other instance hears of it through the database (no event reaches this test): looked at until it does.
                var seen: [String: Any]?
                try await eventually("docs.passages = 4 on the other instance, which says \(String(describing: seen))") {
                    seen = try await Self.get("\(two)/settings/docs.passages").json as? [String: Any]
                    return seen?["value"] as? String == "4"
                }
                #expect(seen?["value"] as? String == "4" && seen?["source"] as? String == "database", "\(String(describing: seen))")
                // Where each listens stays its own.
                #expect(try await second.run(["config", "get", "serve.port"]).stdout == "8080\n")

                print("[shared] searched and removed through the other")
                for server in servers {
                    let ended = await server.stop()
                    print("[shared] server \(server.process.processIdentifier) ended with \(ended.status)")
                    #expect(ended.status == 0, "\(ended.stderr)")
                    #expect(ended.stderr.contains("Documents, conversations, accounts, settings and API keys are in the database"))
                }
            }
        }
    }

    /// The messages of a conversation as one instance lists them: (role, status, text).
    static func messages(_ base: String, _ conversation: String) async throws -> [(role: String, status: String, text: String)] {
        let listed = try await HTTPCalls.get("\(base)/conversations/\(conversation)/messages").json as? [[String: Any]] ?? []
        return listed.map { ($0["role"] as? String ?? "", $0["status"] as? String ?? "", $0["text"] as? String ?? "") }
    }

    @Test func aConversationGoesOnThroughTheOtherInstanceAndOutlivesOneKilledMidAnswer() async throws {
        try await OpenAITestServer.with { model in
            // A long story streams slowly (60 pieces, 50 ms apart) and is held after the 30th (1.5 s in,
            // past the first instance's first save of what has come) until the test has killed it.
            let killed = Gate()
            model.handle("/v1/chat/completions") { request in
                let asked = ((request.json?["messages"] as? [[String: Any]])?.last?["content"] as? String) ?? ""
                if asked.contains("story") {
                    return .chatStream((1...60).map { "word\($0) " }, holdingAfter: 30, until: { await killed.pass() }, pause: .milliseconds(50))
                }
                return .chatStream(["Answer to: ", asked])
            }
            try await TestDatabase.with { url in
                try await Self.withBoth(
                    try Self.instance(database: url.connectionString, model: model), try Self.instance(database: url.connectionString, model: model)
                ) { servers, bases in
                    let (one, two) = (bases[0], bases[1])

                    // Started through the first, continued through the second with the whole history.
                    let id = try #require(try await HTTPCalls.post("\(one)/conversations", json: [:]).object["id"] as? String)
                    let first = try await HTTPCalls.post("\(one)/conversations/\(id)/turns", json: ["text": "What is the capital of France?", "stream": false])
                    #expect(first.status == 200, "\(first.object)")
                    let listed = try await HTTPCalls.get("\(two)/conversations").json as? [String: Any]
                    #expect((listed?["items"] as? [[String: Any]])?.first?["id"] as? String == id, "\(String(describing: listed))")
                    let second = try await HTTPCalls.post("\(two)/conversations/\(id)/turns", json: ["text": "And of Italy?", "stream": false])
                    #expect(second.status == 200, "\(second.object)")
                    let history = (model.requests(to: "/v1/chat/completions").last?.json?["messages"] as? [[String: Any]])?.compactMap { $0["content"] as? String } ?? []
                    #expect(history.contains("What is the capital of France?") && history.contains("Answer to: What is the capital of France?"), "\(history)")
                    #expect(try await Self.messages(one, id).map(\.text) == [
                        "What is the capital of France?", "Answer to: What is the capital of France?", "And of Italy?", "Answer to: And of Italy?",
                    ])

                    // Through the first again, a long answer; the first dies in the middle of it.
                    let asked = model.requests(to: "/v1/chat/completions").count
                    let story = Task { _ = try? await HTTPCalls.post("\(one)/conversations/\(id)/turns", json: ["text": "Tell me a long story.", "stream": false]) }
                    try await model.requests(to: "/v1/chat/completions", count: asked + 1)
                    // Killed in the middle (the story held), once part of it is saved as the second instance
                    // sees it through the database (no event reaches this test of that: looked at until it is).
                    try await killed.reached()
                    try await eventually("part of the story saved, as the second instance lists it") {
                        let last = try await Self.messages(two, id).last
                        return last?.role == "assistant" && last?.status == "pending" && last?.text.isEmpty == false
                    }
                    kill(servers[0].process.processIdentifier, SIGKILL)
                    killed.open()
                    _ = await story.value
                    print("[shared] killed the first instance mid-answer")

                    // The second sees the answer marked failed (its lease sweeps what dead instances left),
                    // with what had arrived; nothing else is lost.
                    var messages = try await Self.messages(two, id)
                    try await eventually("the answer marked failed by the second instance's lease, after \(messages)") {
                        messages = try await Self.messages(two, id)
                        return messages.last?.status == "failed"
                    }
                    #expect(messages.count == 6, "\(messages)")
                    #expect(messages.last?.status == "failed", "\(messages)")
                    #expect(messages[4].text == "Tell me a long story.")
                    #expect(messages[..<4].allSatisfy { $0.status == "complete" })

                    // And the second retries it, in place.
                    let retried = try await HTTPCalls.post("\(two)/conversations/\(id)/retry", json: ["stream": false])
                    #expect(retried.status == 200, "\(retried.object)")
                    messages = try await Self.messages(two, id)
                    #expect(messages.count == 6)
                    #expect(messages.last?.status == "complete" && messages.last?.text.hasPrefix("word1 word2") == true, "\(messages)")
                    #expect(messages.last?.text.contains("word60") == true)

                    let ended = await servers[1].stop()
                    #expect(ended.status == 0, "\(ended.stderr)")
                }
            }
        }
    }

    /// A request with a header, through a session that keeps no cookies of its own: the status and JSON.
    static func get(_ url: String, header: (name: String, value: String)) async throws -> (status: Int, json: Any?) {
        var request = URLRequest(url: URL(string: url)!, timeoutInterval: 600)
        request.setValue(header.value, forHTTPHeaderField: header.name)
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpShouldSetCookies = false
        let (data, response) = try await URLSession(configuration: configuration).data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
    }

    @Test func accountsSessionsAndTokensAreTheSameOnEveryInstance() async throws {
        try await TestDatabase.with { url in
            var first = try Self.instance(database: url.connectionString)
            first.environment["SIBYL_SERVE_AUTH"] = "accounts"
            var second = try Self.instance(database: url.connectionString)
            second.environment["SIBYL_SERVE_AUTH"] = "accounts"
            // The account is made once, in the database, from either machine's CLI.
            let added = try await first.run(["users", "add", "ada", "--admin", "--password-stdin"], input: "correct horse battery\n")
            #expect(added.status == 0, "\(added.stderr)")
            #expect(try await second.run(["users", "list"]).stdout.contains("ada"))
            let token = try await second.run(["users", "token", "ada", "--label", "script"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(token.hasPrefix("sibyl_"))

            try await Self.withBoth(first, second) { servers, bases in
                // Signed in through the first…
                var signIn = URLRequest(url: URL(string: "\(bases[0])/auth/session")!, timeoutInterval: 600)
                signIn.httpMethod = "POST"
                signIn.setValue("application/json", forHTTPHeaderField: "Content-Type")
                signIn.httpBody = Data(#"{"name": "ada", "password": "correct horse battery"}"#.utf8)
                let configuration = URLSessionConfiguration.ephemeral
                configuration.httpShouldSetCookies = false
                let (_, response) = try await URLSession(configuration: configuration).data(for: signIn)
                let cookie = try #require((response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie")?.split(separator: ";").first.map(String.init))
                #expect(cookie.hasPrefix("sibyl_session="))
                // …the session is good on the second, and so is the token the CLI made.
                let session = try await Self.get("\(bases[1])/auth/session", header: ("Cookie", cookie))
                #expect(session.status == 200 && ((session.json as? [String: Any])?["account"] as? [String: Any])?["name"] as? String == "ada", "\(session)")
                #expect(try await Self.get("\(bases[1])/conversations", header: ("Authorization", "Bearer \(token)")).status == 200)
                #expect(try await Self.get("\(bases[1])/conversations", header: ("Authorization", "Bearer sibyl_\(String(repeating: "x", count: 43))")).status == 401)
                // Signed out everywhere through the CLI: no instance takes the session any more.
                #expect(try await first.run(["users", "reset-password", "ada", "--password-stdin"], input: "another good passphrase\n").status == 0)
                #expect(try await Self.get("\(bases[0])/auth/session", header: ("Cookie", cookie)).status == 401)
                #expect(try await Self.get("\(bases[1])/auth/session", header: ("Cookie", cookie)).status == 401)
                // Wrong passwords spread over both instances count together: after five, the right one
                // is refused on either until a minute has passed.
                func signInStatus(_ base: String, _ password: String) async throws -> Int {
                    var request = URLRequest(url: URL(string: "\(base)/auth/session")!, timeoutInterval: 600)
                    request.httpMethod = "POST"
                    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
                    request.httpBody = try JSONSerialization.data(withJSONObject: ["name": "ada", "password": password])
                    let (_, response) = try await URLSession(configuration: configuration).data(for: request)
                    return (response as? HTTPURLResponse)?.statusCode ?? 0
                }
                let started = ContinuousClock.now
                for attempt in 0..<5 { #expect(try await signInStatus(bases[attempt % 2], "wrong guess \(attempt)") == 401) }
                let rightThroughFirst = try await signInStatus(bases[0], "another good passphrase")
                let rightThroughSecond = try await signInStatus(bases[1], "another good passphrase")
                // A try comes back a minute after a failure: only a machine that stalled that long could see one.
                if ContinuousClock.now - started < .seconds(50) {
                    #expect(rightThroughFirst == 429)
                    #expect(rightThroughSecond == 429)
                } else {
                    print("[shared database] the sign-ins took over 50 s; a try may have come back, so the 429s are not checked")
                }
            }
        }
    }

    @Test func anInstallationIsCopiedIntoTheDatabaseAndBack() async throws {
        try await OpenAITestServer.with { model in
            model.handle("/v1/chat/completions") { _ in .chatStream(["The wifi password is violet-harbor-42."]) }
            try await TestDatabase.with { url in
                var embedded = try Self.instance(database: url.connectionString, model: model)
                embedded.environment["SIBYL_DATABASE_URL"] = nil
                #expect(try await embedded.run(["ask", "What is the wifi password?"]).status == 0)
                #expect(try await embedded.run(["personas", "add", "pirate", "--prompt", "Talk like a pirate."]).status == 0)
                #expect(try await embedded.run(["memory", "add", "I work at the Kestrel Lane office."]).status == 0)
                let handbook = embedded.home.appendingPathComponent("handbook.md")
                try FileManager.default.createDirectory(at: embedded.home, withIntermediateDirectories: true)
                try Data("# Offices\n\nThe staff wifi password at the Kestrel Lane office is violet-harbor-42.\n\n# Printers\n\nPrinters are on the second floor.\n".utf8).write(to: handbook)
                #expect(try await embedded.run(["docs", "add", handbook.path]).status == 0)

                // Settings (the shared ones; where it listens stays the machine's), a key, an account with a token.
                #expect(try await embedded.run(["config", "set", "chat.temperature", "0.3"]).status == 0)
                #expect(try await embedded.run(["config", "set", "serve.port", "9123"]).status == 0)
                #expect(try await embedded.run(["keys", "set", "openai"], input: "sk-from-home-0123456789\n").status == 0)
                #expect(try await embedded.run(["users", "add", "ada", "--admin", "--password-stdin"], input: "correct horse battery\n").status == 0)
                #expect(try await embedded.run(["users", "token", "ada", "--label", "script"]).status == 0)

                let copied = try await embedded.run(["db", "migrate", "--to", url.connectionString])
                #expect(copied.status == 0, "\(copied.stderr)")
                #expect(copied.stdout.contains("accounts: 1 copied with 1 API tokens, 0 already there"), "\(copied.stdout)")
                #expect(copied.stdout.contains("settings: 1 settings and 1 API keys copied"), "\(copied.stdout)")
                #expect(copied.stdout.contains("sealed with the database key"), "\(copied.stdout)")
                #expect(copied.stdout.contains("local user: 1 collections, 1 documents copied"), "\(copied.stdout)")
                #expect(copied.stdout.contains("every copy checked"))
                #expect(copied.stdout.contains("local user: 1 conversations copied (2 messages), 0 already there, 1 personas, 1 remembered facts; every copy checked"), "\(copied.stdout)")
                let again = try await embedded.run(["db", "migrate", "--to", url.connectionString])
                #expect(again.stdout.contains("0 documents copied (0 passages), 1 already there"), "\(again.stdout)")
                #expect(again.stdout.contains("0 conversations copied (0 messages), 1 already there, 0 personas, 0 remembered facts"), "\(again.stdout)")
                let conversations = try await embedded.run(["conversations", "list", "--json"], environment: ["SIBYL_DATABASE_URL": url.connectionString]).conversations
                #expect(conversations?.count == 1 && conversations?.first?["messageCount"] as? Int == 2, "\(String(describing: conversations))")
                let personas = try await embedded.run(["personas", "list"], environment: ["SIBYL_DATABASE_URL": url.connectionString])
                #expect(personas.stdout.contains("pirate"), "\(personas.stdout)")
                let remembered = try await embedded.run(["memory", "list"], environment: ["SIBYL_DATABASE_URL": url.connectionString])
                #expect(remembered.stdout.contains("I work at the Kestrel Lane office."), "\(remembered.stdout)")

                // The same installation, now searching the database.
                let shared = try await embedded.run(["search", "wifi password"], environment: ["SIBYL_DATABASE_URL": url.connectionString])
                #expect(shared.stdout.contains("violet-harbor-42"), "\(shared.stdout) \(shared.stderr)")

                // Another machine sees the settings and the account at once, and the key once it holds the database key.
                let other = try Self.instance(database: url.connectionString, model: model)
                #expect(try await other.run(["config", "get", "chat.temperature"]).stdout == "0.3\n")
                #expect(try await other.run(["users", "tokens", "ada"]).stdout.contains("script"))
                #expect(try await other.run(["db", "status"]).stdout.contains("this instance does not hold it"))
                let exported = embedded.home.appendingPathComponent("database.key")
                let export = try await embedded.run(["db", "key", "export", exported.path], environment: ["SIBYL_DATABASE_URL": url.connectionString])
                #expect(export.status == 0, "\(export.stderr)")
                #expect((try FileManager.default.attributesOfItem(atPath: exported.path)[.posixPermissions] as? Int) == 0o600)
                let imported = try await other.run(["db", "key", "import", exported.path])
                #expect(imported.status == 0 && imported.stdout.contains("opens the 1 API keys"), "\(imported.stdout) \(imported.stderr)")
                #expect(try await other.run(["db", "status"]).stdout.contains("this instance holds it"))

                // And back, into another data directory.
                let back = try await other.run(["db", "migrate", "--to", "home"])
                #expect(back.status == 0, "\(back.stderr)")
                #expect(back.stdout.contains("1 documents copied"), "\(back.stdout)")
                #expect(back.stdout.contains("1 conversations copied (2 messages)"), "\(back.stdout)")
                #expect(back.stdout.contains("1 remembered facts"), "\(back.stdout)")
                #expect(try await other.run(["memory", "list"], environment: ["SIBYL_DATABASE_URL": ""]).stdout.contains("Kestrel Lane office"))
                #expect(back.stdout.contains("accounts: 1 copied with 1 API tokens"), "\(back.stdout)")
                #expect(back.stdout.contains("settings: 1 settings and 1 API keys copied"), "\(back.stdout)")
                #expect(try await other.run(["config", "get", "chat.temperature"], environment: ["SIBYL_DATABASE_URL": ""]).stdout == "0.3\n")
                #expect(try await other.run(["keys", "list"], environment: ["SIBYL_DATABASE_URL": ""]).stdout.contains("sk-…6789"))
                #expect(try await other.run(["users", "list"], environment: ["SIBYL_DATABASE_URL": ""]).stdout.contains("ada"))

                // Asking through the database: the machine holding the database key sends the stored
                // key; one without it is told how to get it, and sends nothing.
                model.reset()
                model.handle("/v1/chat/completions") { _ in .chatStream(["Ask the front desk."]) }
                #expect(try await other.run(["ask", "What is the wifi password?"]).status == 0)
                #expect(model.requests(to: "/v1/chat/completions").last?.header("Authorization") == "Bearer sk-from-home-0123456789")
                let third = try Self.instance(database: url.connectionString, model: model)
                model.reset()
                let refused = try await third.run(["ask", "What is the wifi password?"])
                #expect(refused.status != 0 && refused.stderr.contains("sibyl db key import"), "\(refused.stderr)")
                #expect(model.requests(to: "/v1/chat/completions").isEmpty)
                let shown = try await other.run(["conversations", "show", try #require(conversations?.first?["id"] as? String)], environment: ["SIBYL_DATABASE_URL": ""])
                #expect(shown.stdout.contains("violet-harbor-42"), "\(shown.stdout) \(shown.stderr)")
                let local = try await other.run(["search", "wifi password"], environment: ["SIBYL_DATABASE_URL": ""])
                #expect(local.stdout.contains("violet-harbor-42"), "\(local.stdout) \(local.stderr)")
                #expect(FileManager.default.fileExists(atPath: other.home.appendingPathComponent("knowledge.sqlite").path))
            }
        }
    }
}
