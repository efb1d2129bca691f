import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import OpenAITestServer
import Testing

/// `sibyl users` and `sibyl serve` with accounts, as an administrator sets a shared server up.
@Suite("sibyl users and a shared sibyl serve", .timeLimit(.minutes(10)))
struct UsersCLITests {
    static let password = "correct horse battery"

    /// With no account yet, a server beyond loopback starts locked, with a one-time token that makes
    /// the first administrator over HTTP; a weak password does not spend it, a second use fails.
    @Test func theFirstAdministratorCanBeMadeWithTheSetupToken() async throws {
        try await OpenAITestServer.with { model in
            let cli = try CLIRunner(server: model)
            try await cli.withStarted(["serve", "--host", "0.0.0.0", "--port", "0"]) { server in
                let port = try await ServeCLITests.port(of: server)
                try await server.waitForOutput(containing: "/api/v1/auth/setup", inErrors: true, timeout: .seconds(60))
                let line = try #require(server.stderr.text.split(separator: "\n").first { $0.contains("\"token\"") })
                let token = try #require(line.split(separator: "\"").drop { $0 != "token" }.dropFirst(2).first.map(String.init))
                #expect(token.count == 43)
                #expect(server.stderr.text.contains("http://0.0.0.0:\(port)/setup#\(token)"), "the one-time link for a browser")
                let base = "http://127.0.0.1:\(port)/api/v1"
                var locked = URLRequest(url: URL(string: "\(base)/conversations")!, timeoutInterval: 600)
                locked.httpMethod = "GET"
                #expect(try await Self.status(of: locked) == 401, "locked until there is an account")
                #expect(try await Self.setup(base, token: token, password: "short") == 400)
                #expect(try await Self.setup(base, token: String(token.reversed()), password: Self.password) == 403)
                #expect(try await Self.setup(base, token: token, password: Self.password) == 201, "the weak password did not spend the token")
                #expect(try await Self.setup(base, token: token, password: Self.password) == 403, "one use only")
                let list = try await cli.run(["users", "list", "--json"])
                #expect((list.json as? [[String: Any]])?.map { "\($0["name"] ?? "") \($0["role"] ?? "")" } == ["root admin"])
            }
        }
    }

    static func setup(_ base: String, token: String, password: String) async throws -> Int {
        var request = URLRequest(url: URL(string: "\(base)/auth/setup")!, timeoutInterval: 600)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["token": token, "name": "root", "password": password])
        return try await status(of: request)
    }

    @Test func aServerBeyondLoopbackNeedsAnAccountAndThenAsksForOne() async throws {
        try await OpenAITestServer.with { model in
            let cli = try CLIRunner(server: model)

            let open = try await cli.run(["serve", "--host", "0.0.0.0", "--port", "0"], environment: ["SIBYL_SERVE_AUTH": "none"])
            #expect(open.status != 0)
            #expect(open.stderr.contains("only on a loopback address"), "\(open.stderr)")

            let notAdmin = try await cli.run(["users", "add", "bo", "--password-stdin"], input: Self.password + "\n")
            #expect(notAdmin.status != 0)
            #expect(notAdmin.stderr.contains("must be an administrator"))
            let weak = try await cli.run(["users", "add", "ada", "--admin", "--password-stdin"], input: "short\n")
            #expect(weak.status != 0)
            #expect(weak.stderr.contains("shorter than 8"))
            let added = try await cli.run(["users", "add", "ada", "--admin", "--password-stdin"], input: Self.password + "\n")
            #expect(added.status == 0, "\(added.stderr)")
            #expect(try await cli.run(["users", "add", "bo", "--password-stdin"], input: "another fine pass\n").status == 0)
            let list = try await cli.run(["users", "list", "--json"])
            let accounts = try #require(list.json as? [[String: Any]])
            #expect(accounts.map { "\($0["name"] ?? "") \($0["role"] ?? "")" } == ["ada admin", "bo user"])
            #expect(!list.stdout.contains("$2b$"), "password hashes are never printed")

            let lastAdmin = try await cli.run(["users", "remove", "ada"])
            #expect(lastAdmin.status != 0)
            #expect(lastAdmin.stderr.contains("last administrator"))

            let token = try await cli.run(["users", "token", "bo", "--label", "script"])
            #expect(token.status == 0)
            #expect(token.stderr.contains("shown only now"))
            let secret = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(secret.hasPrefix("sibyl_"))
            let tokens = try await cli.run(["users", "tokens", "bo"])
            #expect(tokens.stdout.contains("script") && !tokens.stdout.contains(secret))

            try await cli.withStarted(["serve", "--host", "0.0.0.0", "--port", "0"]) { server in
                let port = try await ServeCLITests.port(of: server)
                try await server.waitForOutput(containing: "Accounts are on", inErrors: true, timeout: .seconds(120))
                let url = URL(string: "http://127.0.0.1:\(port)/api/v1/conversations")!
                #expect(try await Self.status(of: URLRequest(url: url, timeoutInterval: 600)) == 401)
                var authorized = URLRequest(url: url, timeoutInterval: 600)
                authorized.setValue("Bearer \(secret)", forHTTPHeaderField: "Authorization")
                #expect(try await Self.status(of: authorized) == 200)

                #expect(try await cli.run(["users", "revoke", "bo", String(tokens.stdout.split(separator: "\n")[1].split(separator: " ")[0])]).status == 0)
                #expect(try await Self.status(of: authorized) == 401, "a revoked token stops working on a running server")
                let log = await server.stop()
                for text in [log.stdout, log.stderr, added.stdout, added.stderr] {
                    #expect(!text.contains(Self.password) && !text.contains(secret), "no password or token in any output")
                }
            }
        }
    }

    static func status(of request: URLRequest) async throws -> Int {
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode ?? 0
    }
}
