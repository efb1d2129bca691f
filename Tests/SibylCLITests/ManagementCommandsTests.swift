import Foundation
import OpenAITestServer
import SibylCore
import Testing

@Suite("sibyl conversations, personas, config, keys", .timeLimit(.minutes(10)))
struct ManagementCommandsTests {
    @Test func conversationsShowExportImportDelete() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["Blue, because of Rayleigh scattering."], title: "Sky Colour")
            let cli = try CLIRunner(server: server)
            _ = try await cli.run(["ask", "Why is the sky blue?"])
            let list = try #require(try await cli.run(["conversations", "list", "--json"]).conversations)
            let id = try #require(list.first?["id"] as? String)
            let short = String(id.prefix(8))

            let table = try await cli.run(["conversations"])
            #expect(table.stdout.contains(short))
            #expect(table.stdout.contains("Sky Colour"))

            let show = try await cli.run(["conversations", "show", short])
            #expect(show.status == 0)
            #expect(show.stdout.contains("Why is the sky blue?"))
            #expect(show.stdout.contains("Rayleigh"))

            let markdown = try await cli.run(["conversations", "export", short, "--format", "markdown"])
            #expect(markdown.stdout.contains("Sky Colour"))
            #expect(markdown.stdout.contains("Why is the sky blue?"))

            let file = cli.home.appendingPathComponent("export.json").path
            #expect(try await cli.run(["conversations", "export", short, "-o", file]).status == 0)
            let imported = try await cli.run(["conversations", "import", file])
            #expect(imported.status == 0)
            #expect(imported.stdout.hasPrefix("Imported"))
            #expect(try await cli.run(["conversations", "list", "--json"]).conversations?.count == 2)

            #expect(try await cli.run(["conversations", "delete", short]).status == 0)
            let missing = try await cli.run(["conversations", "show", short])
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("sibyl conversations list"))

            let bad = try await cli.run(["conversations", "import", "-"], input: "{\"format\":\"something-else\"}")
            #expect(bad.status == 1)
            #expect(bad.stderr.contains("error:"))
        }
    }

    @Test func personasAddListUseRemove() async throws {
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["Ahoy!"])
            let cli = try CLIRunner(server: server)
            let added = try await cli.run([
                "personas", "add", "pirate", "--prompt", "Talk like a pirate.", "--temperature", "1.2", "--top-p", "0.9",
                "--presence-penalty", "0.5", "--frequency-penalty", "-0.5", "--max-tokens", "200", "--summary", "arr",
            ])
            #expect(added.status == 0)
            let list = try await cli.run(["personas", "list"])
            #expect(list.stdout.contains("pirate"))
            #expect(list.stdout.contains("temp 1.2, max 200, top-p 0.9, presence 0.5, frequency -0.5"))
            #expect(list.stdout.contains("concise"))
            #expect(try await cli.run(["ask", "--persona", "pirate", "hello"]).status == 0)
            let sent = try #require(server.requests(to: chatPath).compactMap(\.json).first { $0["stream"] as? Bool == true })
            #expect((sent["messages"] as? [[String: Any]])?.first?["content"] as? String == "Talk like a pirate.")
            #expect(sent["temperature"] as? Double == 1.2)
            #expect(sent["top_p"] as? Double == 0.9)
            #expect(sent["frequency_penalty"] as? Double == -0.5)
            let outOfRange = try await cli.run(["personas", "add", "y", "--prompt", "p", "--top-p", "2"])
            #expect(outOfRange.status != 0)
            #expect(outOfRange.stderr.contains("--top-p: top_p must be between 0 and 1, not 2.0."))

            // A built-in copied, with one value changed and the rest the original's.
            #expect(try await cli.run(["personas", "copy", "translator", "terse-translator", "--max-tokens", "60"]).status == 0)
            let copied = try await cli.run(["personas", "list", "--json"])
            let copy = try #require((try JSONSerialization.jsonObject(with: Data(copied.stdout.utf8)) as? [[String: Any]])?.first { $0["name"] as? String == "terse-translator" })
            #expect(copy["temperature"] as? Double == 0.2)
            #expect(copy["maxTokens"] as? Int == 60)
            #expect(copy["builtIn"] as? Bool == false)
            let taken = try await cli.run(["personas", "copy", "concise", "PIRATE"])
            #expect(taken.status == 1)
            #expect(taken.stderr.contains("There is already a persona 'PIRATE'"))

            let builtIn = try await cli.run(["personas", "remove", "assistant"])
            #expect(builtIn.status == 1)
            #expect(builtIn.stderr.contains("built in"))
            #expect(try await cli.run(["personas", "remove", "pirate"]).status == 0)
            let unknown = try await cli.run(["ask", "--persona", "pirate", "hello"])
            #expect(unknown.status == 1)
            #expect(unknown.stderr.contains("There is no persona 'pirate'"))
            #expect(try await cli.run(["personas", "add", "x"]).status != 0)
        }
    }

    @Test func configSetGetUnsetAndEnvironmentPrecedence() async throws {
        let cli = try CLIRunner(server: nil)
        #expect(try await cli.run(["config", "set", "chat.model", "my-model"]).status == 0)
        #expect(try await cli.run(["config", "get", "chat.model"]).stdout == "my-model\n")
        let all = try await cli.run(["config", "get"])
        #expect(all.stdout.contains("chat.model"))
        #expect(all.stdout.contains("config file"))
        let overridden = try await cli.run(["config", "get", "chat.model"], environment: ["SIBYL_CHAT_MODEL": "env-model"])
        #expect(overridden.stdout == "env-model\n")
        let typo = try await cli.run(["config", "set", "chat.modle", "x"])
        #expect(typo.status == 1)
        #expect(typo.stderr.contains("Unknown setting 'chat.modle'"))
        let badURL = try await cli.run(["config", "set", "base_url", "not a url"])
        #expect(badURL.status == 1)
        #expect(try await cli.run(["config", "unset", "chat.model"]).status == 0)
        #expect(try await cli.run(["config", "get", "chat.model"]).stdout == "gpt-4o-mini\n")
    }

    @Test func keysAreStoredOwnerOnlyAndNeverPrinted() async throws {
        let secret = "sk-proj-ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
        let cli = try CLIRunner(server: nil)
        let stored = try await cli.run(["keys", "set", "openai"], input: secret + "\n")
        #expect(stored.status == 0)
        #expect(!stored.stdout.contains(secret) && !stored.stderr.contains(secret))
        let file = cli.home.appendingPathComponent("secrets.json").path
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let list = try await cli.run(["keys", "list"])
        #expect(list.stdout.contains("openai"))
        #expect(list.stdout.contains("sk-…6789"))
        #expect(!list.stdout.contains(secret))
        // The key is used: `providers check` against a server that records the header.
        try await OpenAITestServer.with { server in
            answerEverything(server, with: ["ok"])
            var withServer = cli
            withServer.environment["OPENAI_BASE_URL"] = server.baseURL
            _ = try await withServer.run(["ask", "hi"])
            #expect(server.requests(to: chatPath).first?.header("Authorization") == "Bearer \(secret)")
            // Nothing but the secrets file holds it.
            for name in try FileManager.default.subpathsOfDirectory(atPath: cli.home.path) where name != "secrets.json" {
                let path = cli.home.appendingPathComponent(name).path
                if let data = FileManager.default.contents(atPath: path) {
                    #expect(!String(decoding: data, as: UTF8.self).contains(secret), "key found in \(name)")
                }
            }
            #expect(try await cli.run(["keys", "remove", "openai"]).status == 0)
            #expect(try await cli.run(["keys", "remove", "openai"]).status == 1)
        }
    }
}
