import Foundation
import Testing

/// `sibyl db` against the test PostgreSQL (`scripts/test.sh` starts one and sets SIBYL_TEST_DATABASE_URL).
@Suite(.timeLimit(.minutes(10)), .enabled(if: ProcessInfo.processInfo.environment["SIBYL_TEST_DATABASE_URL"] != nil, "no PostgreSQL to test against (scripts/test.sh starts one)"))
struct DatabaseCLITests {
    @Test func statusMigrateAndStatusAgain() async throws {
        let url = try #require(ProcessInfo.processInfo.environment["SIBYL_TEST_DATABASE_URL"])
        let cli = try CLIRunner(server: nil, extra: ["SIBYL_DATABASE_URL": url])
        let status = try await cli.run(["db", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("server     PostgreSQL "))
        #expect(status.stdout.contains("pgvector   0."))
        let migrated = try await cli.run(["db", "migrate"])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let again = try await cli.run(["db"])
        #expect(again.stdout.contains("schema     version 8 of 8\n"), "\(again.stdout)")
        // Whether this instance can open the API keys stored there (it holds no database key).
        #expect(again.stdout.contains("settings   "), "\(again.stdout)")
        #expect(again.stdout.contains("no database key yet") || again.stdout.contains("this instance does not hold it"), "\(again.stdout)")
    }

    @Test func noURLOrABadOneIsAPlainErrorAndAPasswordIsNeverShown() async throws {
        let cli = try CLIRunner(server: nil)
        let missing = try await cli.run(["db", "status"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("No database is named"))
        let refused = try await cli.run(["db", "status", "--url", "postgres://bob:hunter2@127.0.0.1:1/x"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("Cannot reach the database postgres://bob:***@127.0.0.1:1/x"))
        #expect(!(refused.stdout + refused.stderr).contains("hunter2"))
    }
}
