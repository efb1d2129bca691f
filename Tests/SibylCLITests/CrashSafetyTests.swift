import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import GRDB
import LocalEngines
import OpenAITestServer
import Testing
import SibylCore
import SibylTestSupport

/// kill -9 during document ingestion and streamed answers, 20 times at random moments: after each,
/// both databases pass `PRAGMA integrity_check`, no document is half-ingested (every one has its
/// passages, each with a vector), and after a restart every answer is complete or marked failed.
@Suite(
    "sibyl serve survives kill -9", .timeLimit(.minutes(30)),
    .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().first { $0.name == "embeddings" }?.installed == true
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local embeddings are not installed"
    )
)
struct CrashSafetyTests {
    @Test func killedAtRandomMomentsItLosesNothingAndLeavesNothingHalfDone() async throws {
        try await OpenAITestServer.with { model in
            // A slow answer: 60 pieces, 40 ms apart, held after a random number of them (each round
            // its own) until the test has killed the server: the kill lands in the middle of every one.
            let round = Observed((held: 0, killed: Gate()))
            model.handle("/v1/chat/completions") { _ in
                let (held, killed) = round.value
                return .chatStream((1...60).map { "word\($0) " }, holdingAfter: held, until: { await killed.pass() }, pause: .milliseconds(40))
            }
            var cli = try CLIRunner(server: model, extra: ["SIBYL_EMBEDDINGS_PROVIDER": "local", "SIBYL_TITLES": "first-words"])
            cli.environment["SIBYL_ENGINES"] = EngineLayout().root.path
            var generator = SystemRandomNumberGenerator()
            let rounds = 20
            var survived = 0
            var killedMidAnswer = 0
            for number in 1...rounds {
                let killed = Gate()
                let held = Int.random(in: 0...60, using: &generator)
                round.update { $0 = (held, killed) }
                try await cli.withStarted(["serve", "--port", "0"]) { server in
                    let port = try await ServeCLITests.port(of: server)
                    let base = "http://127.0.0.1:\(port)/api/v1"

                    // The previous round's damage is settled by this start: nothing pending, nothing half-made.
                    try Self.checkDatabases(home: cli.home, round: number, afterRestart: true)

                    let conversation = try await HTTPCalls.post("\(base)/conversations", json: [:]).object["id"] as? String ?? ""
                    let asked = model.requests(to: "/v1/chat/completions").count
                    let upload = Task { try? await Self.upload(base: base, round: number) }
                    let answer = Task { _ = try? await HTTPCalls.post("\(base)/conversations/\(conversation)/turns", json: ["text": "Tell me a long story, part \(number)."], timeout: 30) }
                    // The kill lands at a random moment of the answer (after 0 to 60 of its pieces, 0 to 2.4 s
                    // in), whenever the model is reached on a busy machine; ingestion runs alongside.
                    try await model.requests(to: "/v1/chat/completions", count: asked + 1, within: .seconds(600))
                    try await killed.reached(within: .seconds(600))
                    kill(server.process.processIdentifier, SIGKILL)
                    await server.exited()
                    killed.open()
                    // Not cancelled: cancelling a URLSession request under way can deadlock FoundationNetworking;
                    // the killed server's closed connections end both requests anyway.
                    _ = await (upload.value, answer.value)
                    if try Self.pendingAnswers(home: cli.home) > 0 { killedMidAnswer += 1 }
                    try Self.checkDatabases(home: cli.home, round: number, afterRestart: false)
                    survived += 1
                }
            }
            // One more start settles the last round.
            try await cli.withStarted(["serve", "--port", "0"]) { server in
                _ = try await ServeCLITests.port(of: server)
                try Self.checkDatabases(home: cli.home, round: rounds + 1, afterRestart: true)
            }
            let knowledge = try DatabaseQueue(path: cli.home.appendingPathComponent("knowledge.sqlite").path)
            let documents = try await knowledge.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM document") ?? 0 }
            try knowledge.close()
            print("[crash] kill -9 rounds survived: \(survived) of \(rounds) (\(killedMidAnswer) mid-answer); \(documents) documents whole, every answer complete or marked failed")
            #expect(survived == rounds)
            #expect(killedMidAnswer > 0, "no kill landed while an answer was being written: the test proved nothing about answers")
        }
    }

    /// Both databases are sound, every document has all it needs, and (once a server has started
    /// again) no answer is left pending.
    static func checkDatabases(home: URL, round: Int, afterRestart: Bool) throws {
        for name in ["sibyl.sqlite", "knowledge.sqlite"] {
            let path = home.appendingPathComponent(name).path
            guard FileManager.default.fileExists(atPath: path) else { continue }
            let database = try DatabaseQueue(path: path)
            let check = try database.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
            #expect(check == ["ok"], "round \(round): \(name) integrity_check: \(check)")
            if name == "knowledge.sqlite" {
                let halfDone = try database.read { db in
                    try Int.fetchOne(db, sql: """
                        SELECT COUNT(*) FROM document d
                        WHERE NOT EXISTS (SELECT 1 FROM chunk c WHERE c.document_id = d.id)
                           OR EXISTS (SELECT 1 FROM chunk c WHERE c.document_id = d.id AND length(c.embedding) = 0)
                        """) ?? 0
                }
                #expect(halfDone == 0, "round \(round): \(halfDone) documents without their passages or vectors")
            }
            try database.close()
        }
        if afterRestart {
            #expect(try pendingAnswers(home: home) == 0, "round \(round): an answer was left pending after a restart")
        }
    }

    static func pendingAnswers(home: URL) throws -> Int {
        let path = home.appendingPathComponent("sibyl.sqlite").path
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        let database = try DatabaseQueue(path: path)
        defer { try? database.close() }
        return try database.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM message WHERE status = 'pending'") ?? 0 }
    }

    /// Six Markdown files of a few hundred words each, different every round.
    static func upload(base: String, round: Int) async throws {
        let files = (1...6).map { file in
            (name: "report-\(round)-\(file).md",
             text: "# Report \(round).\(file)\n\n" + (1...40).map { "Paragraph \($0) of report \(round).\(file) says the figure for region \($0 * file) was \($0 * round * 7) units, up from last year.\n\n" }.joined())
        }
        try await HTTPCalls.upload(base: base, files: files)
    }
}
