import Assistant
import Foundation
import SibylApp

/// A fresh data directory for one test, removed afterwards.
public struct TemporaryHome: Sendable {
    public let url: URL

    public init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-\(label)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The environment of a test runtime: its own data directory, the caller's PATH and engines, no
/// retries, titles from the first words (so no title request races the answer), and `extra` over it.
public func testEnvironment(home: URL, _ extra: [String: String] = [:]) -> [String: String] {
    var environment = ["SIBYL_HOME": home.path, "SIBYL_MAX_RETRIES": "0", "SIBYL_TITLES": "first-words"]
    let process = ProcessInfo.processInfo.environment
    for name in ["PATH", "SIBYL_ENGINES", "HOME", "XDG_CACHE_HOME"] { environment[name] = process[name] }
    return environment.merging(extra) { $1 }
}

/// Runs `body` with a runtime on a fresh data directory whose chat model is a scripted server
/// (`ScriptedModel`; with `embeddings`, the embedder too; with `hearing`, speech-to-text, which
/// hears that text in any recording); the runtime is shut down, the server stopped and the directory removed
/// afterwards, whatever happens.
public func withTestRuntime(
    answer: [String] = ["Hello."], title: String = "A title", embeddings: Bool = false, hearing heard: String? = nil, environment extra: [String: String] = [:],
    _ body: (SibylRuntime, ScriptedModel) async throws -> Void
) async throws {
    let home = try TemporaryHome("runtime")
    defer { home.remove() }
    let model = try await ScriptedModel.start(answer: answer, title: title)
    do {
        var environment = embeddings ? model.environmentWithEmbeddings : model.environment
        if let heard {
            model.hear(heard)
            environment.merge(model.speechEnvironment) { $1 }
        }
        let runtime = try SibylRuntime(environment: testEnvironment(home: home.url, environment.merging(extra) { $1 }))
        do {
            try await body(runtime, model)
        } catch {
            await runtime.shutdown()
            throw error
        }
        await runtime.shutdown()
    } catch {
        await model.stop()
        throw error
    }
    await model.stop()
}
