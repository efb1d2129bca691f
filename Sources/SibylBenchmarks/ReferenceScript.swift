import ArgumentParser
import Foundation
import SibylCore
import TestFixtures

/// A Python reference benchmark (under `scripts/bench/`) run in the environment that
/// `scripts/bench/setup-reference.sh` creates.
struct ReferenceScript {
    var python: String
    var script: String
    /// Variables set for the script on top of this process's environment.
    var environment: [String: String] = [:]

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// `$SIBYL_BENCH_VENV/bin/python`, else `~/.cache/sibyl/bench-venv/bin/python`.
    static func defaultPython(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let venv = environment["SIBYL_BENCH_VENV"], !venv.isEmpty {
            return venv + "/bin/python"
        }
        let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        return home + "/.cache/sibyl/bench-venv/bin/python"
    }

    /// `scripts/bench/<name>` in a directory above this source file or the working directory.
    static func locate(_ name: String) -> String? {
        RepositoryFile.locate("scripts/bench/" + name)?.path
    }

    /// Runs the script with `arguments` and returns what it printed on standard output.
    func run(_ arguments: [String]) throws -> Data {
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw Failure(description: "no Python at \(python): run scripts/bench/setup-reference.sh (or pass --python)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script] + arguments
        var environment = ProcessInfo.processInfo.environment
        for (name, value) in [
            ("HF_HUB_OFFLINE", "1"), ("TRANSFORMERS_OFFLINE", "1"), ("TRANSFORMERS_VERBOSITY", "error"),
            ("HF_HUB_DISABLE_PROGRESS_BARS", "1"), ("TOKENIZERS_PARALLELISM", "false"),
        ] + self.environment.map({ ($0.key, $0.value) }) {
            environment[name] = value
        }
        process.environment = environment
        let errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-bench-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: errorLog.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: errorLog) }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            throw Failure(description: "\(script) exited with status \(process.terminationStatus):\n\(log.suffix(2000))")
        }
        return data
    }
}

/// The instruction sets a benchmark holds both sides to: `best` lets each use all this CPU has;
/// `avx2` measures an AVX2-only CPU on a newer one: Sibyl's AVX2 + FMA kernels, and the
/// reference's libraries told to stop at AVX2 (PyTorch's dispatch, oneDNN, MKL, OpenBLAS, faiss's
/// dispatch) or built for it (hnswlib from `$SIBYL_BENCH_VENV/avx2-site`).
enum BenchmarkISA: String, CaseIterable, ExpressibleByArgument {
    case best
    case avx2

    /// What the reference's environment gains.
    func referenceEnvironment(python: String) -> [String: String] {
        switch self {
        case .best:
            return [:]
        case .avx2:
            let venv = URL(fileURLWithPath: python).deletingLastPathComponent().deletingLastPathComponent().path
            return [
                "ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2", "DNNL_MAX_CPU_ISA": "AVX2",
                "MKL_ENABLE_INSTRUCTIONS": "AVX2", "OPENBLAS_CORETYPE": "Haswell", "FAISS_SIMD_LEVEL": "AVX2",
                "PYTHONPATH": venv + "/avx2-site",
            ]
        }
    }
}

/// The processor a report's figures come from, e.g. "AMD EPYC, 2 cores, widest SIMD AVX-512".
enum CPUDescription {
    static let current: String = {
        var name = "unknown CPU"
        #if os(Linux)
        if let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
           let line = info.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
           let colon = line.firstIndex(of: ":") {
            name = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        #endif
        let cores = ProcessInfo.processInfo.activeProcessorCount
        return "\(name), \(cores) core\(cores == 1 ? "" : "s"), widest SIMD \(KernelLevel.best.description)"
    }()
}
