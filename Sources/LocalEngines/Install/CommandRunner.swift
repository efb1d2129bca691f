import Foundation
import Subprocess
import Synchronization
import SystemPackage

/// Runs external tools (cmake, tar, apt-get, espeak-ng) with their output logged and streamed line by line.
///
/// Children are started through swift-subprocess, which gives them a clean signal mask and default
/// signal handlers. That matters: Sibyl blocks SIGCHLD and ignores SIGINT/SIGTERM for its own
/// handling, and a child inheriting that (as with Foundation's `Process`) cannot reap its own
/// children (cmake hangs) and cannot be stopped with SIGTERM.
enum CommandRunner {
    /// Runs a command to completion; throws with the log's tail when it fails.
    static func run(
        _ executable: String,
        _ arguments: [String],
        in directory: URL? = nil,
        log: URL,
        environment: [String: String] = [:],
        onLine: (@Sendable (String) -> Void)? = nil
    ) async throws {
        let path = try resolve(executable)
        try FileManager.default.createDirectory(at: log.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: log.path) { _ = FileManager.default.createFile(atPath: log.path, contents: nil) }
        let logHandle = try FileHandle(forWritingTo: log)
        defer { try? logHandle.close() }
        try logHandle.seekToEnd()
        logHandle.write(Data("\n$ \(([executable] + arguments).joined(separator: " "))\n".utf8))
        var overrides: [Environment.Key: String?] = [:]
        for (key, value) in environment { overrides[Environment.Key(stringLiteral: key)] = value }
        var options = PlatformOptions()
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(3))]
        let result = try await Subprocess.run(
            .path(FilePath(path)),
            arguments: Arguments(arguments),
            environment: .inherit.updating(overrides),
            workingDirectory: directory.map { FilePath($0.path) },
            platformOptions: options,
            input: .none,
            output: .sequence,
            error: .combinedWithOutput
        ) { execution in
            var tail: [String] = []
            for try await line in execution.standardOutput.strings() {
                let text = line.trimmingCharacters(in: .newlines)
                logHandle.write(Data((text + "\n").utf8))
                tail.append(text)
                if tail.count > 20 { tail.removeFirst() }
                onLine?(text)
            }
            return tail
        }
        try Task.checkCancellation()
        guard case .exited(let code) = result.terminationStatus, code == 0 else {
            let status: Int32
            switch result.terminationStatus {
            case .exited(let code): status = code
            case .signaled(let signal): status = 128 + signal
            }
            throw InstallError.commandFailed(
                command: ([URL(fileURLWithPath: executable).lastPathComponent] + arguments.prefix(3)).joined(separator: " "),
                status: status,
                logTail: result.closureResult.suffix(8).joined(separator: "\n"),
                log: log.path
            )
        }
    }

    /// Runs a short command (`pactl info`, `dpkg-query`) to completion on the calling thread, for
    /// synchronous callers: its exit status and standard output, or nil when it could not start.
    /// Foundation's `Process` is enough for these: they start no children of their own.
    static func capture(_ executable: String, _ arguments: [String]) -> (status: Int32, output: Data)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        // Read before waiting, so that a full pipe cannot stall the child.
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, output)
    }

    /// Finds a tool on PATH.
    static func resolve(_ name: String) throws -> String {
        if name.hasPrefix("/") { return name }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw InstallError.missingTool(name, package: debianPackage(for: name))
    }

    static func debianPackage(for tool: String) -> String {
        switch tool {
        case "cmake": "cmake"
        case "c++", "g++", "cc", "gcc", "make": "build-essential"
        case "tar": "tar"
        default: tool
        }
    }
}
