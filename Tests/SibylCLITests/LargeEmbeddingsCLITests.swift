import Foundation
import LocalEngines
import OpenAITestServer
import Testing
import SibylCore
import SibylTestSupport

/// `embeddings.local_model large`: documents embedded with all-mpnet-base-v2 in Swift, searched
/// with it, and embedded again with MiniLM after switching back.
@Suite(
    .timeLimit(.minutes(30)), .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings-large" }?.installed == true
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the large local embeddings are not installed (sibyl models install embeddings-large)"
    )
)
struct LargeEmbeddingsCLITests {
    @Test func documentsAreEmbeddedSearchedAndReembeddedWithTheChosenLocalModel() async throws {
        try await OpenAITestServer.with { server in
            var cli = try CLIRunner(server: server)
            cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
            cli.environment["SIBYL_EMBEDDINGS_PROVIDER"] = "local"
            try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
            let note = cli.home.appendingPathComponent("tea.md")
            try Data("""
            # Tea

            ## Brewing

            Green tea is brewed at about 80 degrees Celsius for two minutes. Boiling water makes it bitter.

            ## Bicycles

            Road bike tyres are inflated to between 6 and 8 bar.
            """.utf8).write(to: note)

            #expect(try await cli.run(["config", "set", "embeddings.local_model", "large"]).status == 0)
            let added = try await cli.run(["docs", "add", note.path])
            #expect(added.status == 0, "stderr: \(added.stderr)")
            let stats = try #require(try await cli.run(["docs", "stats", "--json"]).json as? [[String: Any]])
            #expect(stats.first?["embeddingModel"] as? String == "all-mpnet-base-v2")
            let search = try #require(try await cli.run(["search", "--json", "-k", "2", "How hot should the water be for green tea?"]).json as? [[String: Any]])
            #expect(search.first?["section"] as? [String] == ["Tea", "Brewing"])
            #expect((search.first?["vectorScore"] as? Double ?? 0) > 0.3)

            // Back to MiniLM: the vectors no longer fit until the collection is embedded again.
            #expect(try await cli.run(["config", "set", "embeddings.local_model", "default"]).status == 0)
            let reindexed = try await cli.run(["docs", "reindex"])
            #expect(reindexed.status == 0, "stderr: \(reindexed.stderr)")
            let after = try #require(try await cli.run(["docs", "stats", "--json"]).json as? [[String: Any]])
            #expect(after.first?["embeddingModel"] as? String == "all-MiniLM-L6-v2")
            let again = try #require(try await cli.run(["search", "--json", "-k", "1", "tyre pressure for a road bike"]).json as? [[String: Any]])
            #expect(again.first?["section"] as? [String] == ["Tea", "Bicycles"])

            let refused = try await cli.run(["config", "set", "embeddings.local_model", "huge"])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("default") && refused.stderr.contains("large"))
        }
    }
}
