import Foundation
import OpenAIClient
import SibylCore
import SibylTestSupport
import TestFixtures
import Testing
@testable import LocalEngines

/// The real llama-server with the local model (temperature 0, so answers are repeatable).
@Suite(.timeLimit(.minutes(30)), .serialized, .enabled(if: EngineAvailability.runs("chat"), "the local chat engine is not installed (sibyl models install chat)"))
struct LlamaServerTests {
    /// Runs `body` with a llama-server of the local model (started by its first caller), and stops
    /// it afterwards whatever happens, awaiting the stop.
    func withServer(_ body: (LlamaServer) async throws -> Void) async throws {
        let layout = EngineAvailability.layout
        let server = LlamaServer(configuration: .init(
            executable: layout.llamaServer,
            model: layout.chatModel,
            alias: "local-test",
            logFile: FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-llama-test-\(UUID().uuidString).log")
        ))
        try await withTeardown { try await body(server) } teardown: { await server.stop() }
    }

    @Test func answersAFactualQuestionWithStreamAndUsage() async throws {
        try await withServer { server in
            let client = OpenAIClient(configuration: OpenAIConfiguration(baseURL: try await server.baseURL()))
            let request = ChatRequest(
                model: "local-test",
                messages: [.system("Answer with one word."), .user("What is the capital of France?")],
                // The local server takes every sampling value a persona may set.
                sampling: Sampling(temperature: 0, maxTokens: 16, topP: 0.9, presencePenalty: 0.1, frequencyPenalty: 0.1)
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
    }

    @Test func itsWaitingThreadsSleepRatherThanSpin() async throws {
        try await withServer { server in
            _ = try await server.baseURL()
            let pid = try #require(await server.processID)
            // Sibyl's own engines (the voice, speech recognition) share the cores with it.
            let arguments = ProcessTable.commandLine(of: pid)
            let poll = try #require(arguments.firstIndex(of: "--poll"), "\(arguments)")
            #expect(arguments[poll + 1] == "0")
        }
    }

    @Test func restartsAfterItDiesAndStops() async throws {
        try await withServer { server in
            let first = try await server.baseURL()
            let pid = try #require(await server.processID)
            kill(pid, SIGKILL)
            // The server notices the exit when the process is reaped: moments later, or seconds on a
            // loaded machine; it tells no one, so the test looks until it has.
            try await eventually("the server to notice its process died") { await server.processID == nil }
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
    }

    @Test func callersDuringStartUpShareOneServer() async throws {
        try await withServer { server in
            // The first request, and two more arriving while the model loads (a title, a second tab).
            let urls = try await withThrowingTaskGroup(of: String.self) { group in
                group.addTask { try await server.baseURL() }
                try await eventually("the first launch") { await server.launches > 0 }
                for _ in 0..<2 { group.addTask { try await server.baseURL() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(urls.count == 1)
            #expect(try await server.baseURL() == urls.first)
            #expect(await server.launches == 1)
            await server.stop()
        }
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
