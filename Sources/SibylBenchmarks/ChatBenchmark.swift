import ArgumentParser
import Foundation

/// `sibyl-bench chat`: local chat through Sibyl against direct requests to the same llama-server.
struct ChatBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chat",
        abstract: "Time to first token and tokens/s: Sibyl's conversation engine vs hand-written requests to the same llama-server."
    )

    @Option(help: "Measured rounds of each (after one warm-up each).") var rounds = 8
    @Option(help: "Answer length in tokens.") var maxTokens = 96
    @Option(help: "The question.") var question = "Explain in a short paragraph why the sky is blue."

    func run() async throws {
        print("Local chat: Sibyl vs direct llama-server requests (\(rounds) interleaved rounds, temperature 0, \(maxTokens) tokens max)")
        let benchmark = ChatOverheadBenchmark(question: question, maxTokens: maxTokens, rounds: rounds)
        let (direct, sibyl) = try await benchmark.run()
        func summary(_ samples: [ChatOverheadBenchmark.Sample]) -> (ttft: Double, total: Double, speed: Double, tokens: Double) {
            (
                Statistics.median(samples.map { Statistics.milliseconds($0.timeToFirstToken) }),
                Statistics.median(samples.map { Statistics.milliseconds($0.total) }),
                Statistics.median(samples.map(\.tokensPerSecond)),
                Statistics.median(samples.map { Double($0.completionTokens) })
            )
        }
        let d = summary(direct)
        let s = summary(sibyl)
        func row(_ name: String, _ values: [String]) -> String {
            name.padding(toLength: 24, withPad: " ", startingAt: 0) + values.map { String(repeating: " ", count: max(0, 12 - $0.count)) + $0 }.joined()
        }
        print(row("", ["TTFT ms", "total ms", "tokens/s", "tokens"]))
        print(row("direct llama-server", [String(format: "%.1f", d.ttft), String(format: "%.1f", d.total), String(format: "%.2f", d.speed), String(format: "%.0f", d.tokens)]))
        print(row("through Sibyl", [String(format: "%.1f", s.ttft), String(format: "%.1f", s.total), String(format: "%.2f", s.speed), String(format: "%.0f", s.tokens)]))
        let ttftOverhead = (s.ttft / d.ttft - 1) * 100
        let speedLoss = (1 - s.speed / d.speed) * 100
        print(String(format: "Sibyl adds %.1f %% to time to first token and costs %.1f %% of tokens/s (goal: ≤ 5 %% each).", ttftOverhead, speedLoss))
    }
}
