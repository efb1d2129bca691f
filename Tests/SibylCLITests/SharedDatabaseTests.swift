import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LocalEngines
import TestDatabase
import Testing

/// Two `sibyl serve` instances with data directories of their own on one PostgreSQL, as two
/// machines behind a load balancer would run: they start at the same moment on an empty database,
/// and a document uploaded through one is searchable through the other at once.
@Suite(
    .serialized,
    .enabled(
        if: TestDatabase.url != nil && EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings" }?.installed == true,
        "no test PostgreSQL (SIBYL_TEST_DATABASE_URL) or the local embeddings are not installed"
    )
)
struct SharedDatabaseTests {
    static func instance(database: String) throws -> CLIRunner {
        var cli = try CLIRunner(server: nil, extra: ["SIBYL_EMBEDDINGS_PROVIDER": "local", "SIBYL_DATABASE_URL": database])
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        return cli
    }

    static func get(_ url: String) async throws -> (status: Int, json: Any?) {
        let (data, response) = try await URLSession.shared.data(for: URLRequest(url: URL(string: url)!, timeoutInterval: 60))
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, try? JSONSerialization.jsonObject(with: data))
    }

    @Test func twoInstancesStartTogetherAndShareDocumentsAtOnce() async throws {
        try await TestDatabase.with { url in
            let first = try Self.instance(database: url.connectionString)
            let second = try Self.instance(database: url.connectionString)
            // Both at the same moment, on an empty database: one migrates, the other waits for it.
            let servers = [try first.start(["serve", "--port", "0"]), try second.start(["serve", "--port", "0"])]
            defer { for server in servers { server.process.terminate() } }
            // Against a hang: after five minutes the servers say what they were doing, and go.
            let watchdog = Task {
                try await Task.sleep(for: .seconds(300))
                for server in servers {
                    print("[shared] still running after 5 minutes; server \(server.process.processIdentifier) said:\n\(server.stderr.text)")
                    kill(server.process.processIdentifier, SIGKILL)
                }
            }
            defer { watchdog.cancel() }
            let ports = [try await ServeCLITests.port(of: servers[0]), try await ServeCLITests.port(of: servers[1])]
            print("[shared] both instances listen: \(ports)")
            let (one, two) = ("http://127.0.0.1:\(ports[0])/api/v1", "http://127.0.0.1:\(ports[1])/api/v1")

            let boundary = "shared-\(UUID().uuidString)"
            var body = Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"files\"; filename=\"handbook.md\"\r\nContent-Type: text/markdown\r\n\r\n".utf8)
            body.append(Data("""
                # Staff handbook

                ## Offices

                The Kestrel Lane office is open from 8:00 to 18:00. The staff wifi password at the Kestrel Lane office is violet-harbor-42.

                ## Facilities

                Printers are on the second floor next to the kitchen.
                \r\n--\(boundary)--\r\n
                """.utf8))
            var upload = URLRequest(url: URL(string: "\(one)/documents")!, timeoutInterval: 120)
            upload.httpMethod = "POST"
            upload.setValue("multipart/form-data; boundary=\(boundary)", forHTTPHeaderField: "Content-Type")
            upload.httpBody = body
            let (_, response) = try await URLSession.shared.data(for: upload)
            #expect((response as? HTTPURLResponse)?.statusCode == 200)
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
            var remove = URLRequest(url: URL(string: "\(two)/documents/\(id)")!)
            remove.httpMethod = "DELETE"
            _ = try await URLSession.shared.data(for: remove)
            #expect((try await Self.get("\(one)/documents").json as? [[String: Any]])?.isEmpty == true)

            print("[shared] searched and removed through the other")
            for server in servers { server.process.terminate() }
            for server in servers {
                let ended = await server.finish()
                print("[shared] server \(server.process.processIdentifier) ended with \(ended.status)")
                #expect(ended.status == 0, "\(ended.stderr)")
                #expect(ended.stderr.contains("Documents are in the database"))
            }
        }
    }

    @Test func anInstallationIsCopiedIntoTheDatabaseAndBack() async throws {
        try await TestDatabase.with { url in
            var embedded = try Self.instance(database: url.connectionString)
            embedded.environment["SIBYL_DATABASE_URL"] = nil
            let handbook = embedded.home.appendingPathComponent("handbook.md")
            try FileManager.default.createDirectory(at: embedded.home, withIntermediateDirectories: true)
            try Data("# Offices\n\nThe staff wifi password at the Kestrel Lane office is violet-harbor-42.\n\n# Printers\n\nPrinters are on the second floor.\n".utf8).write(to: handbook)
            #expect(try await embedded.run(["docs", "add", handbook.path]).status == 0)

            let copied = try await embedded.run(["db", "migrate", "--to", url.connectionString])
            #expect(copied.status == 0, "\(copied.stderr)")
            #expect(copied.stdout.contains("local user: 1 collections, 1 documents copied"), "\(copied.stdout)")
            #expect(copied.stdout.contains("every copy checked"))
            let again = try await embedded.run(["db", "migrate", "--to", url.connectionString])
            #expect(again.stdout.contains("0 documents copied (0 passages), 1 already there"), "\(again.stdout)")

            // The same installation, now searching the database.
            let shared = try await embedded.run(["search", "wifi password"], environment: ["SIBYL_DATABASE_URL": url.connectionString])
            #expect(shared.stdout.contains("violet-harbor-42"), "\(shared.stdout) \(shared.stderr)")

            // And back, into another data directory.
            let other = try Self.instance(database: url.connectionString)
            let back = try await other.run(["db", "migrate", "--to", "home"])
            #expect(back.status == 0, "\(back.stderr)")
            #expect(back.stdout.contains("1 documents copied"), "\(back.stdout)")
            let local = try await other.run(["search", "wifi password"], environment: ["SIBYL_DATABASE_URL": ""])
            #expect(local.stdout.contains("violet-harbor-42"), "\(local.stdout) \(local.stderr)")
            #expect(FileManager.default.fileExists(atPath: other.home.appendingPathComponent("knowledge.sqlite").path))
        }
    }
}
