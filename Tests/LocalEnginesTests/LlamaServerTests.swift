import Foundation
import OpenAIClient
import SibylCore
import Testing
@testable import LocalEngines

/// The real llama-server with the local model (temperature 0, so answers are repeatable).
@Suite(.serialized, .enabled(if: EngineAvailability.runs("chat"), "the local chat engine is not installed (sibyl models install chat)"))
struct LlamaServerTests {
    func makeServer() -> LlamaServer {
        let layout = EngineAvailability.layout
        return LlamaServer(configuration: .init(
            executable: layout.llamaServer,
            model: layout.chatModel,
            alias: "local-test",
            logFile: FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-llama-test-\(UUID().uuidString).log")
        ))
    }

    @Test func answersAFactualQuestionWithStreamAndUsage() async throws {
        let server = makeServer()
        defer { Task { await server.stop() } }
        let client = OpenAIClient(configuration: OpenAIConfiguration(baseURL: try await server.baseURL()))
        let request = ChatRequest(
            model: "local-test",
            messages: [.system("Answer with one word."), .user("What is the capital of France?")],
            temperature: 0,
            maxTokens: 16
        )
        var deltas: [String] = []
        var completion: ChatCompletion?
        for try await event in client.stream(request) {
            switch event {
            case .delta(let text): deltas.append(text)
            case .finished(let finished): completion = finished
            case .usage: break
            }
        }
        let answer = try #require(completion)
        #expect(deltas.count >= 1)
        #expect(deltas.joined() == answer.text)
        #expect(answer.text.contains("Paris"))
        #expect(answer.model == "local-test")
        let usage = try #require(answer.usage)
        #expect(usage.promptTokens > 10)
        #expect(usage.completionTokens >= 1)
        #expect(answer.timings.timeToFirstToken != nil)
    }

    @Test func restartsAfterItDiesAndStops() async throws {
        let server = makeServer()
        let first = try await server.baseURL()
        let pid = try #require(await server.processID)
        kill(pid, SIGKILL)
        // The server notices the exit when the process is reaped: moments later, or seconds on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(30)
        while await server.processID != nil, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        let second = try await server.baseURL()
        #expect(await server.launches == 2)
        let restartedPID = await server.processID
        #expect(first != second || restartedPID != pid)
        let models = try await OpenAIClient(configuration: OpenAIConfiguration(baseURL: second)).models()
        #expect(models.map(\.id).contains("local-test"))
        let running = try #require(await server.processID)
        await server.stop()
        #expect(await server.processID == nil)
        #expect(kill(running, 0) != 0, "the server process must be gone after stop()")
    }

    @Test func callersDuringStartUpShareOneServer() async throws {
        let server = makeServer()
        // The first request, and two more arriving while the model loads (a title, a second tab).
        let urls = try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try await server.baseURL() }
            while await server.launches == 0 { try await Task.sleep(for: .milliseconds(5)) }
            for _ in 0..<2 { group.addTask { try await server.baseURL() } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(urls.count == 1)
        #expect(try await server.baseURL() == urls.first)
        #expect(await server.launches == 1)
        await server.stop()
    }

    @Test func aMissingBinaryIsAClearError() async throws {
        let server = LlamaServer(configuration: .init(
            executable: URL(fileURLWithPath: "/nonexistent/llama-server"),
            model: EngineAvailability.layout.chatModel,
            alias: "x",
            logFile: FileManager.default.temporaryDirectory.appendingPathComponent("x.log")
        ))
        let error = await #expect(throws: LocalEngineError.self) { try await server.baseURL() }
        #expect(error?.remedy == .install(component: "chat"))
        #expect(error?.recoverySuggestion?.contains("Install the chat component") == true)
    }
}
