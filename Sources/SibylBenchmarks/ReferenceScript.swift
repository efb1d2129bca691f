import Foundation

/// A Python reference benchmark (under `scripts/bench/`) run in the environment that
/// `scripts/bench/setup-reference.sh` creates.
struct ReferenceScript {
    var python: String
    var script: String

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

    /// `scripts/bench/<name>` in the working directory or in a directory above this source file.
    static func locate(_ name: String) -> String? {
        var candidates = [FileManager.default.currentDirectoryPath]
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            candidates.append(directory.path)
            directory = directory.deletingLastPathComponent()
        }
        return candidates
            .map { $0 + "/scripts/bench/" + name }
            .first { FileManager.default.fileExists(atPath: $0) }
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
        ] {
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
