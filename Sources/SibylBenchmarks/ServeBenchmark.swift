import ArgumentParser
import AsyncHTTPClient
import Assistant
import Foundation
import LocalEngines
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import OpenAITestServer
import SibylApp

/// `sibyl-bench serve`: what `sibyl serve` costs, each figure beside its reference in the same run.
struct ServeBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "sibyl serve: streaming overhead vs llama-server, 200 concurrent streamed turns, a JSON route vs nginx (wrk), and two instances on one PostgreSQL vs one.",
        discussion: "Needs the local chat engine (sibyl models install chat) and, for the JSON route, wrk and nginx (scripts/bench/setup-serve-reference.sh)."
    )

    enum Part: String, ExpressibleByArgument, CaseIterable { case streaming, concurrency, json, instances, all }

    @Option(help: "streaming, concurrency, json, instances or all.") var part: Part = .all
    @Option(help: "Streaming: measured rounds of each (interleaved, after a warm-up each).") var rounds = 20
    @Option(help: "Streaming: answer length in tokens.") var maxTokens = 96
    @Option(help: "Concurrency: simultaneous streamed turns.") var turns = 200
    @Option(help: "Concurrency: tokens per answer (sent at 50 tokens/s).") var tokens = 100
    @Option(help: "Concurrency: measured rounds (after a warm-up round).") var turnRounds = 3
    @Option(help: "JSON route: seconds of load for each server in each round.") var seconds = 5
    @Option(help: "JSON route: rounds (nginx, then sibyl serve, each round).") var jsonRounds = 3
    @Option(help: "Instances: the PostgreSQL server (default: SIBYL_DATABASE_URL); a database is made for the run and dropped after.") var databaseURL: String?
    @Option(help: "Instances: simultaneous turns in each round.") var instanceTurns = 100
    @Option(help: "Instances: measured rounds of each set-up.") var instanceRounds = 5

    func run() async throws {
        if part == .streaming || part == .all { try await StreamingOverhead(rounds: rounds, maxTokens: maxTokens).run() }
        if part == .concurrency || part == .all { try await ConcurrentTurns(turns: turns, tokens: tokens, rounds: turnRounds).run() }
        if part == .json || part == .all { try await JSONRoute(seconds: seconds, rounds: jsonRounds).run() }
        if part == .instances || part == .all { try await InstancesThroughput(turns: instanceTurns, tokens: tokens, rounds: instanceRounds, databaseURL: databaseURL).run() }
    }
}

/// An HTTP client with room for hundreds of streams to one host.
let benchmarkClient: HTTPClient = {
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool.concurrentHTTP1ConnectionsPerHostSoftLimit = 1024
    return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
}()

/// Sends a JSON request and returns the body.
func requestJSON(_ url: String, method: HTTPMethod = .POST, body: Any? = nil) async throws -> Data {
    var request = HTTPClientRequest(url: url)
    request.method = method
    if let body {
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
    }
    let response = try await benchmarkClient.execute(request, timeout: .minutes(5))
    let data = Data(buffer: try await response.body.collect(upTo: 64 << 20))
    guard (200..<300).contains(response.status.code) else {
        throw BenchmarkFailure(message: "\(method) \(url): \(response.status.code) \(String(decoding: data, as: UTF8.self))")
    }
    return data
}

/// Reads a server-sent-event stream, calling `onEvent` with each event's text as it arrives.
func readEvents(_ request: HTTPClientRequest, onEvent: (Substring) -> Void) async throws {
    let response = try await benchmarkClient.execute(request, timeout: .minutes(10))
    var pending = ""
    for try await buffer in response.body {
        pending += String(buffer: buffer)
        while let end = pending.range(of: "\n\n") {
            onEvent(pending[..<end.lowerBound])
            pending = String(pending[end.upperBound...])
        }
    }
}

/// `/v1/chat/completions` through Sibyl to a llama-server, against the same request sent to that
/// llama-server directly: time to first token and tokens/s, interleaved rounds.
struct StreamingOverhead {
    let rounds: Int
    let maxTokens: Int

    func run() async throws {
        let layout = EngineLayout()
        let llama = LlamaServer(configuration: .init(
            executable: layout.llamaServer, model: layout.chatModel, alias: "bench",
            logFile: FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-serve-llama.log")
        ))
        let llamaURL = try await llama.baseURL()
        let sibyl = try ServedSibyl(environment: [
            "SIBYL_CHAT_PROVIDER": "remote", "SIBYL_CHAT_BASE_URL": llamaURL, "SIBYL_CHAT_MODEL": "bench",
        ])
        defer { sibyl.stop() }
        let system = PersonaCatalog.builtIn[0].systemPrompt
        func sample(direct: Bool) async throws -> ChatOverheadBenchmark.Sample {
            let question = "Question \(Int.random(in: 100_000...999_999)): Explain in a short paragraph why the sky is blue."
            var body: [String: Any] = ["temperature": 0, "max_tokens": maxTokens, "stream": true, "stream_options": ["include_usage": true]]
            body["model"] = direct ? "bench" : "sibyl-assistant"
            body["messages"] = direct ? [["role": "system", "content": system], ["role": "user", "content": question]] : [["role": "user", "content": question]]
            var request = HTTPClientRequest(url: (direct ? llamaURL : sibyl.baseURL + "/v1") + "/chat/completions")
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: body)))
            // llama-server closes a kept-alive connection after a few requests; a request that
            // finds its pooled connection closed before anything arrived is sent again, as any
            // client (Sibyl's included) does.
            for attempt in 1...2 {
                let started = ContinuousClock.now
                var first: ContinuousClock.Instant?
                var tokens = 0
                do {
                    try await readEvents(request) { event in
                        if first == nil, event.contains("\"content\":\""), !event.contains("\"content\":\"\"") { first = .now }
                        if let range = event.range(of: "\"completion_tokens\":") { tokens = Int(event[range.upperBound...].prefix { $0.isNumber }) ?? tokens }
                    }
                } catch {
                    if attempt == 1, first == nil, Self.isStaleConnection(error) { continue }
                    throw BenchmarkFailure(message: "\(direct ? "llama-server" : "sibyl serve") streaming: \(error)")
                }
                let end = ContinuousClock.now
                return .init(timeToFirstToken: (first ?? end) - started, total: end - started, completionTokens: tokens)
            }
            throw BenchmarkFailure(message: "unreachable")
        }
        print("Streaming: /v1/chat/completions through sibyl serve vs straight to the same llama-server (\(rounds) interleaved rounds, temperature 0, \(maxTokens) tokens max)")
        _ = try await sample(direct: true)
        _ = try await sample(direct: false)
        var direct: [ChatOverheadBenchmark.Sample] = []
        var served: [ChatOverheadBenchmark.Sample] = []
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                direct.append(try await sample(direct: true))
                served.append(try await sample(direct: false))
            } else {
                served.append(try await sample(direct: false))
                direct.append(try await sample(direct: true))
            }
        }
        await llama.stop()
        let dTTFT = Statistics.median(direct.map { Statistics.milliseconds($0.timeToFirstToken) })
        let sTTFT = Statistics.median(served.map { Statistics.milliseconds($0.timeToFirstToken) })
        let dSpeed = Statistics.median(direct.map(\.tokensPerSecond))
        let sSpeed = Statistics.median(served.map(\.tokensPerSecond))
        print(String(format: "  direct llama-server   TTFT %8.1f ms   %6.2f tokens/s", dTTFT, dSpeed))
        print(String(format: "  through sibyl serve   TTFT %8.1f ms   %6.2f tokens/s", sTTFT, sSpeed))
        // Each round's two requests ran back to back, so their ratio is free of the machine's drift
        // from one minute to the next; the medians of those ratios are the figures.
        let ttftRatio = Statistics.median(zip(served, direct).map { Statistics.milliseconds($0.timeToFirstToken) / Statistics.milliseconds($1.timeToFirstToken) })
        let speedRatio = Statistics.median(zip(served, direct).map { $0.tokensPerSecond / $1.tokensPerSecond })
        print(String(format: "  time to first token %+.1f %% (goal ≤ +5 %%); tokens/s %.3f× (goal ≥ 0.97×): medians of the rounds' paired ratios", (ttftRatio - 1) * 100, speedRatio))
        print(String(format: "  (ratios of the medians: %+.1f %%, %.3f×)", (sTTFT / dTTFT - 1) * 100, sSpeed / dSpeed))
    }

    static func isStaleConnection(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed { return true }
        if let error = error as? ChannelError, error == .ioOnClosedChannel { return true }
        return false
    }
}

/// Many streamed turns at once through `sibyl serve` (its API, answers saved as they grow) from a
/// scripted model server sending 50 tokens/s each, against the same streams taken straight from
/// that server: all must complete whole; the added p99 gap between tokens is Sibyl's.
///
/// A warm-up round of each comes first (it opens the client's connections), then `rounds`
/// measured rounds, alternating which goes first; the gaps of all measured rounds are pooled.
struct ConcurrentTurns {
    let turns: Int
    let tokens: Int
    let rounds: Int

    func run() async throws {
        let model = try await OpenAITestServer.start()
        defer { Task { await model.stop() } }
        let words = (0..<tokens).map { "w\($0) " }
        model.handle("/v1/chat/completions") { request in
            request.json?["stream"] as? Bool == true ? .chatStream(words, pause: .milliseconds(20)) : .chatCompletion("Title")
        }
        let expected = words.joined()
        let sibyl = try ServedSibyl(environment: [
            "OPENAI_BASE_URL": model.baseURL, "SIBYL_CHAT_PROVIDER": "remote", "SIBYL_MAX_RETRIES": "0", "SIBYL_TITLES": "first-words",
            "SIBYL_SERVE_MAX_TURNS_PER_CLIENT": String(turns * 2),
        ])
        defer { sibyl.stop() }
        print("Concurrency: \(turns) simultaneous streamed turns, \(tokens) tokens each at 50 tokens/s from a scripted model server (\(rounds) rounds after a warm-up)")

        var conversations: [String] = []
        for _ in 0..<turns {
            let data = try await requestJSON(sibyl.baseURL + "/api/v1/conversations", body: [String: Any]())
            conversations.append(((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["id"] as? String) ?? "")
        }
        let modelURL = model.baseURL
        // The reference: the same streams straight from the scripted server.
        func direct() async throws -> Streams {
            try await measure(count: turns) { _ in
                var request = HTTPClientRequest(url: modelURL + "/chat/completions")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: #"{"model":"m","stream":true,"messages":[{"role":"user","content":"go"}]}"#))
                return request
            } text: { event in
                guard let range = event.range(of: "\"content\":\"") else { return nil }
                let piece = event[range.upperBound...].prefix { $0 != "\"" }
                return piece.isEmpty ? nil : String(piece)
            }
        }
        let (base, ids) = (sibyl.baseURL, conversations)
        func served() async throws -> Streams {
            try await measure(count: turns) { index in
                var request = HTTPClientRequest(url: base + "/api/v1/conversations/\(ids[index])/turns")
                request.method = .POST
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(string: #"{"text":"go"}"#))
                return request
            } text: { event in
                guard event.hasPrefix("event: delta"), let range = event.range(of: "\"text\":\"") else { return nil }
                return String(event[range.upperBound...].prefix { $0 != "\"" })
            }
        }

        _ = try await direct()
        _ = try await served()
        var straight = Streams(), through = Streams()
        var saved = 0
        for round in 0..<rounds {
            if round.isMultiple(of: 2) {
                straight.add(try await direct())
                through.add(try await served())
            } else {
                through.add(try await served())
                straight.add(try await direct())
            }
            // Every answer of the round was saved whole.
            for id in conversations {
                let data = try await requestJSON(sibyl.baseURL + "/api/v1/conversations/\(id)/messages", method: .GET)
                let messages = (try JSONSerialization.jsonObject(with: data) as? [[String: Any]]) ?? []
                if messages.last?["status"] as? String == "complete", messages.last?["text"] as? String == expected { saved += 1 }
            }
        }
        let all = turns * rounds
        let directP99 = Statistics.percentile(99, of: straight.gaps), servedP99 = Statistics.percentile(99, of: through.gaps)
        print(String(format: "  straight from the model server: %d/%d complete, gap between tokens p50 %.1f ms, p99 %.1f ms",
                     straight.complete(expected), all, Statistics.median(straight.gaps), directP99))
        print(String(format: "  through sibyl serve:            %d/%d complete, gap between tokens p50 %.1f ms, p99 %.1f ms; %d/%d saved whole",
                     through.complete(expected), all, Statistics.median(through.gaps), servedP99, saved, all))
        print(String(format: "  Sibyl adds %.1f ms to the p99 gap (goal ≤ 20 ms); peak memory of sibyl serve %.0f MB", servedP99 - directP99, sibyl.peakMemoryMB))
    }

    struct Streams {
        var texts: [String] = []
        var gaps: [Double] = []

        func complete(_ expected: String) -> Int { texts.filter { $0 == expected }.count }

        mutating func add(_ other: Streams) {
            texts += other.texts
            gaps += other.gaps
        }
    }

    /// Starts `count` streams at once; collects each one's text and the gaps between its tokens.
    private func measure(count: Int, request: @escaping @Sendable (Int) -> HTTPClientRequest, text: @escaping @Sendable (Substring) -> String?) async throws -> Streams {
        try await withThrowingTaskGroup(of: (String, [Double]).self) { group in
            for index in 0..<count {
                group.addTask {
                    var received = ""
                    var gaps: [Double] = []
                    var last: ContinuousClock.Instant?
                    try await readEvents(request(index)) { event in
                        guard let piece = text(event) else { return }
                        let now = ContinuousClock.now
                        if let last { gaps.append(Statistics.milliseconds(now - last)) }
                        last = now
                        received += piece
                    }
                    return (received, gaps)
                }
            }
            var streams = Streams()
            for try await (text, gaps) in group {
                streams.texts.append(text)
                streams.gaps += gaps
            }
            return streams
        }
    }
}

/// A JSON read route (the conversation list, 50 items) under load with wrk, against nginx serving
/// the same bytes as a static file on the same machine: `rounds` alternating runs of each, after
/// Sibyl is ready (its local chat engine loaded), medians compared.
struct JSONRoute {
    let seconds: Int
    let rounds: Int

    func run() async throws {
        guard let wrk = Self.find("wrk"), let nginx = Self.find("nginx") else {
            throw BenchmarkFailure(message: "wrk and nginx are needed: scripts/bench/setup-serve-reference.sh")
        }
        let sibyl = try ServedSibyl(environment: ["SIBYL_LOG_LEVEL": "info"])
        defer { sibyl.stop() }
        for index in 1...50 {
            _ = try await requestJSON(sibyl.baseURL + "/api/v1/conversations", body: ["title": "Conversation number \(index) about something"])
        }
        let path = "/api/v1/conversations?limit=50"
        let body = try await requestJSON(sibyl.baseURL + path, method: .GET)
        let root = sibyl.home.appendingPathComponent("nginx", isDirectory: true)
        try FileManager.default.createDirectory(at: root.appendingPathComponent("logs"), withIntermediateDirectories: true)
        try body.write(to: root.appendingPathComponent("conversations.json"))
        let port = Int.random(in: 20_000...40_000)
        try """
        worker_processes auto;
        pid \(root.path)/nginx.pid;
        error_log \(root.path)/logs/error.log;
        events { worker_connections 1024; }
        http {
            access_log off;
            server {
                listen 127.0.0.1:\(port);
                location / { root \(root.path); default_type application/json; }
            }
        }
        """.write(to: root.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: nginx)
        server.arguments = ["-c", root.appendingPathComponent("nginx.conf").path, "-p", root.path, "-g", "daemon off;"]
        try server.run()
        defer { server.terminate(); server.waitUntilExit() }
        try await sibyl.waitUntilReady()
        print("JSON route: \(path) (\(body.count) bytes, 50 conversations) with wrk, 2 threads, 32 connections, \(rounds) rounds of \(seconds) s each")
        var nginxRates: [Double] = [], sibylRates: [Double] = []
        for _ in 0..<rounds {
            nginxRates.append(try Self.wrk(wrk, url: "http://127.0.0.1:\(port)/conversations.json", seconds: seconds))
            sibylRates.append(try Self.wrk(wrk, url: sibyl.baseURL + path, seconds: seconds))
        }
        let nginxRate = Statistics.median(nginxRates), sibylRate = Statistics.median(sibylRates)
        func rounded(_ rates: [Double]) -> String { rates.map { String(format: "%.0f", $0) }.joined(separator: ", ") }
        print(String(format: "  nginx (static file)  %9.0f requests/s (median of %@)", nginxRate, rounded(nginxRates)))
        print(String(format: "  sibyl serve          %9.0f requests/s (median of %@)", sibylRate, rounded(sibylRates)))
        print(String(format: "  sibyl serve / nginx  %.2f× (goal ≥ 0.5×)", sibylRate / nginxRate))
    }

    static func wrk(_ wrk: String, url: String, seconds: Int) throws -> Double {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: wrk)
        process.arguments = ["-t2", "-c32", "-d\(seconds)s", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Requests/sec:") }),
              let rate = Double(line.split(separator: " ").last ?? "") else {
            throw BenchmarkFailure(message: "wrk printed no rate:\n\(text)")
        }
        if text.contains("Non-2xx") { throw BenchmarkFailure(message: "wrk saw errors:\n\(text)") }
        return rate
    }

    static func find(_ name: String) -> String? {
        for directory in ["/usr/sbin", "/usr/bin", "/usr/local/bin", "/usr/local/sbin"] where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        return nil
    }
}
