import Foundation
import LocalEngines
import Testing

/// `docs.vector_store = pinecone` as a user turns it on: the runtime finds (or makes) the index on
/// the strict Pinecone mock `scripts/test.sh` starts (SIBYL_TEST_PINECONE_URL), and documents are
/// added, searched and removed with their vectors mirrored there.
@Suite(
    .timeLimit(.minutes(10)), .serialized,
    .enabled(
        if: ProcessInfo.processInfo.environment["SIBYL_TEST_PINECONE_URL"] != nil
            && EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings" }?.installed == true,
        "no Pinecone mock (SIBYL_TEST_PINECONE_URL) or the local embeddings are not installed"
    )
)
struct PineconeCLITests {
    static func cli(key: String?) throws -> CLIRunner {
        let mock = ProcessInfo.processInfo.environment["SIBYL_TEST_PINECONE_URL"] ?? ""
        var extra = [
            "SIBYL_EMBEDDINGS_PROVIDER": "local", "SIBYL_DOCS_VECTOR_STORE": "pinecone",
            "SIBYL_PINECONE_CONTROL_URL": "\(mock)/control", "SIBYL_PINECONE_INDEX": "sibyl-cli-\(UUID().uuidString.prefix(8).lowercased())",
        ]
        if let key { extra["PINECONE_API_KEY"] = key }
        var cli = try CLIRunner(server: nil, extra: extra)
        cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        return cli
    }

    @Test func documentsAreAddedSearchedAndRemovedWithTheirVectorsInPinecone() async throws {
        let cli = try Self.cli(key: "test-key")
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        let handbook = cli.home.appendingPathComponent("handbook.md")
        try Data("# Offices\n\nThe staff wifi password at the Kestrel Lane office is violet-harbor-42.\n\n# Printers\n\nPrinters are on the second floor.\n".utf8).write(to: handbook)
        let added = try await cli.run(["docs", "add", handbook.path])
        #expect(added.status == 0, "\(added.stdout) \(added.stderr)")
        let listed = try #require(try await cli.run(["docs", "list", "--json"]).json as? [[String: Any]])
        #expect(listed.count == 1)
        // Words are searched in the SQL store, whatever holds the vectors.
        let lexical = try await cli.run(["search", "--mode", "lexical", "wifi password"])
        #expect(lexical.stdout.contains("violet-harbor-42"), "\(lexical.stdout) \(lexical.stderr)")
        // The vector search goes to Pinecone (the mock answers with a fixture, not a ranking).
        let vector = try await cli.run(["search", "--mode", "vector", "wifi password"])
        #expect(vector.status == 0, "\(vector.stderr)")
        // A collection's namespace and count show, and follow a rename.
        let renamed = try await cli.run(["docs", "collection", "rename", "default", "Handbooks"])
        #expect(renamed.status == 0, "\(renamed.stderr)")
        #expect(renamed.stdout.contains("Renamed 'default' to 'Handbooks'."))
        let stats = try await cli.run(["docs", "stats"])
        #expect(stats.stdout.contains("NAMESPACE") && stats.stdout.contains("Handbooks"), "\(stats.stdout)")
        let removed = try await cli.run(["docs", "remove", "handbook"])
        #expect(removed.status == 0, "\(removed.stderr)")
        #expect((try await cli.run(["docs", "list", "--json"]).json as? [[String: Any]])?.isEmpty == true)
        // Removing a whole collection asks first; without a terminal, --yes answers.
        let unasked = try await cli.run(["docs", "collection", "remove", "Handbooks"])
        #expect(unasked.status != 0 && unasked.stderr.contains("--yes"))
        let gone = try await cli.run(["docs", "collection", "remove", "Handbooks", "--yes"])
        #expect(gone.status == 0, "\(gone.stderr)")
        #expect(!(try await cli.run(["docs", "stats"])).stdout.contains("Handbooks"))
    }

    @Test func withoutAKeyOrWithAWrongOneNothingIsAddedAndTheErrorSaysWhy() async throws {
        for key in [nil, "wrong-key-123456"] as [String?] {
            let cli = try Self.cli(key: key)
            try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
            let note = cli.home.appendingPathComponent("note.md")
            try Data("# Note\n\nSomething worth keeping.\n".utf8).write(to: note)
            let added = try await cli.run(["docs", "add", note.path])
            #expect(added.status != 0)
            if key == nil {
                #expect(added.stderr.contains("PINECONE_API_KEY"), "\(added.stderr)")
            } else {
                #expect(!(added.stdout + added.stderr).contains("wrong-key-123456"), "the key is never printed")
            }
            let listed = try await cli.run(["docs", "list", "--json"], environment: ["SIBYL_DOCS_VECTOR_STORE": "embedded"])
            #expect((listed.json as? [[String: Any]])?.isEmpty ?? true, "\(listed.stdout)")
        }
    }
}
