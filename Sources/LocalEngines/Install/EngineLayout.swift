import Foundation

/// Where installed engines and models live: `SIBYL_ENGINES`, else `$XDG_CACHE_HOME/sibyl/engines`,
/// else `~/.cache/sibyl/engines`, so that every data directory (and every clone) shares one copy.
public struct EngineLayout: Sendable, Hashable {
    public var root: URL

    public init(root: URL) {
        self.root = root
    }

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let explicit = environment["SIBYL_ENGINES"], !explicit.isEmpty {
            root = URL(fileURLWithPath: (explicit as NSString).expandingTildeInPath, isDirectory: true)
        } else if let cache = environment["XDG_CACHE_HOME"], !cache.isEmpty {
            root = URL(fileURLWithPath: cache, isDirectory: true).appendingPathComponent("sibyl/engines", isDirectory: true)
        } else {
            let home = environment["HOME"].map { URL(fileURLWithPath: $0, isDirectory: true) } ?? FileManager.default.homeDirectoryForCurrentUser
            root = home.appendingPathComponent(".cache/sibyl/engines", isDirectory: true)
        }
    }

    /// Downloaded artefacts, kept so a reinstall needs no network.
    public var downloads: URL { root.appendingPathComponent("downloads", isDirectory: true) }
    /// Source trees and build directories of the engines built here.
    public var builds: URL { root.appendingPathComponent("build", isDirectory: true) }
    /// Build and install logs.
    public var logs: URL { root.appendingPathComponent("logs", isDirectory: true) }
    /// Work in progress; never read by engines.
    public var staging: URL { root.appendingPathComponent(".staging", isDirectory: true) }

    public func url(for output: EngineManifest.Output) -> URL {
        root.appendingPathComponent(output.path)
    }

    /// The receipt written after an output is complete: engines use an output only when it exists.
    public func receipt(for output: EngineManifest.Output) -> URL {
        let url = self.url(for: output)
        return url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).installed")
    }

    public var llamaServer: URL { root.appendingPathComponent("llama.cpp/bin/llama-server") }
    /// The default local chat model (Qwen2.5-Coder 1.5B Instruct).
    public var chatModel: URL { root.appendingPathComponent("models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf") }
    /// The fast local chat model (Qwen2.5-Coder 0.5B Instruct): `--model fast`.
    public var fastChatModel: URL { root.appendingPathComponent("models/qwen2.5-coder-0.5b-instruct-q4_k_m.gguf") }
    public var miniLMDirectory: URL { sentenceModelDirectory("all-MiniLM-L6-v2") }
    /// Where a sentence-embedding model's files (model.safetensors, vocab.txt) are kept, by name.
    public func sentenceModelDirectory(_ name: String) -> URL { root.appendingPathComponent("models/\(name)", isDirectory: true) }
    public var whisperCLI: URL { root.appendingPathComponent("whisper.cpp/bin/whisper-cli") }
    /// whisper.cpp's HTTP server: the model loaded once, for every question.
    public var whisperServer: URL { root.appendingPathComponent("whisper.cpp/bin/whisper-server") }
    public var whisperModel: URL { root.appendingPathComponent("models/ggml-whisper-base.bin") }
    /// Moonshine base (English): encoder, decoder with its key/value cache, and tokenizer, in ONNX Runtime's format.
    public var moonshineDirectory: URL { root.appendingPathComponent("models/moonshine-base-en", isDirectory: true) }
    /// Silero VAD: tells speech from other sound, 32 ms at a time.
    public var sileroModel: URL { root.appendingPathComponent("models/silero-vad/silero_vad.onnx") }
    /// Piper's en_US-joe-medium voice: the model and its configuration (phoneme ids, sample rate).
    public var piperVoice: URL { root.appendingPathComponent("models/piper-en_US-joe-medium/en_US-joe-medium.onnx") }
    public var piperVoiceConfiguration: URL { root.appendingPathComponent("models/piper-en_US-joe-medium/en_US-joe-medium.onnx.json") }
    /// ONNX Runtime's C library, which Moonshine, Silero VAD and Piper run on.
    public var onnxRuntime: URL { root.appendingPathComponent("onnxruntime/lib/libonnxruntime.so.1.22.1") }
    /// The MicroPython unix port, as a CPython 3.11 extension module (runs the Monocle emulator).
    public var microPythonModule: URL { root.appendingPathComponent("micropython/micropython_run.cpython-311-x86_64-linux-gnu.so") }
}
