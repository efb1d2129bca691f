import AsyncHTTPClient
import Foundation
import NIOCore
import OpenAITestServer
import PostgresStorage

/// Two `sibyl serve` instances on one PostgreSQL against one, under the same load of concurrent
/// streamed turns: `turns` conversations each asked one question at once, answered by a scripted
/// model server as fast as it can send (`tokens` pieces, no pauses), so that what limits the rate
/// is Sibyl's own work: the API, the engine, saving drafts and answers in the database. The turns
/// are spread over the instances in turn, as a load balancer would; rounds alternate which
/// set-up goes first, and the median rates are compared.
struct InstancesThroughput {
    let turns: Int
    let tokens: Int
    let rounds: Int
    let databaseURL: String?

    func run() async throws {
        guard let text = databaseURL ?? ProcessInfo.processInfo.environment["SIBYL_DATABASE_URL"], !text.isEmpty else {
            print("Instances: skipped (no PostgreSQL: pass --database-url or set SIBYL_DATABASE_URL)")
            return
        }
        let model = try await OpenAITestServer.start()
        defer { Task { await model.stop() } }
        let words = (0..<tokens).map { "w\($0) " }
        model.handle("/v1/chat/completions") { request in
            request.json?["stream"] as? Bool == true ? .chatStream(words) : .chatCompletion("Title")
        }
        let expected = words.joined()
        try await PostgresDatabase.with(url: try DatabaseURL(text), maximumConnections: 1) { admin in
            try await admin.withScratchDatabase(prefix: "sibyl_bench_instances") { scoped in
                let environment = [
                    "OPENAI_BASE_URL": model.baseURL, "SIBYL_CHAT_PROVIDER": "remote", "SIBYL_MAX_RETRIES": "0", "SIBYL_TITLES": "first-words",
                    "SIBYL_SERVE_MAX_TURNS_PER_CLIENT": String(turns * 2), "SIBYL_DATABASE_URL": scoped.connectionString,
                ]
                let first = try ServedSibyl(environment: environment)
                defer { first.stop() }
                let second = try ServedSibyl(environment: environment)
                defer { second.stop() }
                print("Instances: \(turns) simultaneous streamed turns of \(tokens) tokens (no pauses) through one sibyl serve, then spread over two on the same PostgreSQL (\(rounds) rounds after a warm-up)")
                let one = [first.baseURL], two = [first.baseURL, second.baseURL]
                _ = try await round(through: one, expected: expected)
                _ = try await round(through: two, expected: expected)
                var single: [Double] = [], double: [Double] = []
                for index in 0..<rounds {
                    if index.isMultiple(of: 2) {
                        single.append(try await round(through: one, expected: expected))
                        double.append(try await round(through: two, expected: expected))
                    } else {
                        double.append(try await round(through: two, expected: expected))
                        single.append(try await round(through: one, expected: expected))
                    }
                }
                let (oneRate, twoRate) = (Statistics.median(single), Statistics.median(double))
                print(String(format: "  one instance:  %.0f turns/s (rounds: %@)", oneRate, single.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
                print(String(format: "  two instances: %.0f turns/s (rounds: %@)", twoRate, double.map { String(format: "%.0f", $0) }.joined(separator: ", ")))
                print(String(format: "  two / one: %.2f× (both instances, the model server, PostgreSQL and this client share this machine's %d cores)", twoRate / oneRate, ProcessInfo.processInfo.activeProcessorCount))
            }
        }
    }

    /// One round: `turns` new conversations spread over `bases`, each asked once at the same
    /// moment; the rate of turns answered whole (a round with any other answer fails the run).
    private func round(through bases: [String], expected: String) async throws -> Double {
        var targets: [(base: String, conversation: String)] = []
        for index in 0..<turns {
            let base = bases[index % bases.count]
            let data = try await requestJSON(base + "/api/v1/conversations", body: [String: Any]())
            targets.append((base, ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String) ?? ""))
        }
        let started = ContinuousClock.now
        let texts = try await withThrowingTaskGroup(of: String.self) { group in
            for target in targets {
                group.addTask {
                    var request = HTTPClientRequest(url: target.base + "/api/v1/conversations/\(target.conversation)/turns")
                    request.method = .POST
                    request.headers.add(name: "Content-Type", value: "application/json")
                    request.body = .bytes(ByteBuffer(string: #"{"text":"go"}"#))
                    var received = ""
                    try await readEvents(request) { event in
                        guard event.hasPrefix("event: delta"), let range = event.range(of: "\"text\":\"") else { return }
                        received += event[range.upperBound...].prefix { $0 != "\"" }
                    }
                    return received
                }
            }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        let seconds = Statistics.seconds(ContinuousClock.now - started)
        let whole = texts.filter { $0 == expected }.count
        guard whole == turns else { throw BenchmarkFailure(message: "only \(whole) of \(turns) answers arrived whole") }
        return Double(turns) / seconds
    }
}
