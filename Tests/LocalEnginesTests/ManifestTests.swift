import Foundation
import Testing
@testable import LocalEngines

@Suite("Engine manifest")
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

    @Test func chatModelIsPinnedToTheDocumentedChecksum() {
        let model = manifest.outputs["chat-model"]
        #expect(model?.sha256 == "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32")
        #expect(model?.size == 491_400_064)
        #expect(model?.from.count == 6)
    }

    @Test func layoutFollowsTheEnvironment() {
        #expect(EngineLayout(environment: ["SIBYL_ENGINES": "/opt/e"]).root.path == "/opt/e")
        #expect(EngineLayout(environment: ["XDG_CACHE_HOME": "/c", "HOME": "/h"]).root.path == "/c/sibyl/engines")
        #expect(EngineLayout(environment: ["HOME": "/h"]).root.path == "/h/.cache/sibyl/engines")
    }

    @Test func unknownComponentsAreAClearError() throws {
        let installer = EngineInstaller(layout: EngineLayout(root: FileManager.default.temporaryDirectory))
        #expect(throws: InstallError.self) { try installer.componentNames(["chatt"]) }
        #expect(try installer.componentNames(["all"]) == ["chat", "embeddings", "tokenizers", "stt", "tts", "ocr", "emulator"])
        #expect(try installer.componentNames(["tts", "chat"]) == ["chat", "tts"])
    }
}
