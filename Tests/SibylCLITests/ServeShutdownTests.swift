import Foundation
import OpenAITestServer
import SibylCore
import SibylTestSupport
import Subprocess
import SystemPackage
import TestDatabase
import TestFixtures
import Testing

/// `sibyl serve` stops within `serve.shutdown_grace` after SIGTERM whatever state its database is
/// in: stopped, or frozen (SIGSTOP, so connections stay open and nothing answers). Each case runs
/// on a PostgreSQL of its own, which the test stops or freezes under the running server.
@Suite(.serialized, .timeLimit(.minutes(10)), .enabled(if: TestDatabase.url != nil, "no test PostgreSQL (scripts/test.sh starts one)"))
struct ServeShutdownTests {
    /// The repository's root, for its scripts.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a script of the repository; returns what it printed. Through swift-subprocess, not
    /// Foundation's `Process`, which takes a child for running as long as a grandchild it left
    /// behind (the PostgreSQL server) lives.
    static func script(_ path: String, _ arguments: [String]) async throws -> String {
        let result = try await Subprocess.run(
            .path(FilePath(root.appendingPathComponent(path).path)), arguments: Arguments(arguments), output: .string(limit: 1 << 16), error: .discarded
        )
        guard case .exited(0) = result.terminationStatus else { throw CLIError("\(path) failed: \(result.terminationStatus)") }
        return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct CLIError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The processes of a private PostgreSQL (its postmaster and every backend).
    static func postgresProcesses(in folder: URL) throws -> [pid_t] {
        let text = try String(contentsOf: folder.appendingPathComponent("data/postmaster.pid"), encoding: .utf8)
        guard let postmaster = text.split(separator: "\n").first.flatMap({ pid_t($0) }) else { return [] }
        return [postmaster] + ProcessTable.children(of: postmaster)
    }

    enum Failure: String, CaseIterable {
        case stopped, frozen
    }

    @Test(arguments: Failure.allCases)
    func serveStopsOnSIGTERMWhateverItsDatabaseDoes(_ failure: Failure) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-pg-\(UUID().uuidString)", isDirectory: true)
        let url = try await Self.script("scripts/postgres/start.sh", [folder.path])
        do {
            try await Self.serveStops(database: url, folder: folder, failure: failure)
        } catch {
            await Self.remove(folder)
            throw error
        }
        await Self.remove(folder)
    }

    /// Thaws, stops and removes a private PostgreSQL.
    static func remove(_ folder: URL) async {
        if let processes = try? postgresProcesses(in: folder) { for pid in processes { kill(pid, SIGCONT) } }
        _ = try? await script("scripts/postgres/stop.sh", [folder.path])
        try? FileManager.default.removeItem(at: folder)
    }

    static func serveStops(database url: String, folder: URL, failure: Failure) async throws {
        try await OpenAITestServer.with { model in
            answerEverything(model, with: ["Hello."])
            let cli = try CLIRunner(server: model, extra: ["SIBYL_DATABASE_URL": url, "SIBYL_SERVE_SHUTDOWN_GRACE": "2", "SIBYL_EMBEDDINGS_PROVIDER": "remote"])
            try await cli.withStarted(["serve", "--port", "0"]) { server in
                let port = try await ServeCLITests.port(of: server)
                #expect(try await HTTPCalls.get("http://127.0.0.1:\(port)/api/v1/conversations").status == 200)

                switch failure {
                case .stopped: _ = try await script("scripts/postgres/stop.sh", [folder.path])
                case .frozen: for pid in try postgresProcesses(in: folder) { kill(pid, SIGSTOP) }
                }
                kill(server.process.processIdentifier, SIGTERM)
                // A ceiling against a hang, far above the 2 s grace: before the fix the server never exited.
                let exited = (try? await server.exitStatus.wait(for: "the exit after SIGTERM", within: .seconds(120)) { $0 != nil }) != nil
                if !exited { kill(server.process.processIdentifier, SIGKILL) }
                #expect(exited, "sibyl serve still ran 120 s after SIGTERM with its database \(failure); it said:\n\(server.stderr.text)")
                if failure == .frozen {
                    #expect(server.stderr.text.contains("serve.shutdown_grace has passed"), "what the frozen database held up was given up at the deadline")
                }
            }
        }
    }
}
