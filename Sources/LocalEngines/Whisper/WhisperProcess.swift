import Foundation
import Subprocess
import SystemPackage

/// One run of whisper-cli: its output goes to files, and cancelling the awaiting task stops it.
enum WhisperProcess {
    /// How the program ended.
    enum Termination: Equatable {
        case exited(Int32)
        case signalled(Int32)
    }

    /// Runs the program to completion.
    ///
    /// Standard output is discarded (whisper-cli repeats the transcript there); standard error
    /// goes to `standardError` for the error message. The child is started through swift-subprocess,
    /// so it gets default signal handling (see `CommandRunner`), and a cancelled task tears it down
    /// with SIGTERM, then SIGKILL.
    static func run(_ executable: URL, arguments: [String], standardError: URL) async throws -> Termination {
        let errorFile = try FileDescriptor.open(
            FilePath(standardError.path), .writeOnly, options: [.create, .truncate], permissions: [.ownerReadWrite]
        )
        var options = PlatformOptions()
        options.teardownSequence = [.gracefulShutDown(allowedDurationToNextStep: .seconds(1))]
        let result = try await Subprocess.run(
            .path(FilePath(executable.path)),
            arguments: Arguments(arguments),
            platformOptions: options,
            input: .none,
            output: .discarded,
            error: .fileDescriptor(errorFile, closeAfterSpawningProcess: true)
        )
        try Task.checkCancellation()
        switch result.terminationStatus {
        case .exited(let code): return .exited(code)
        case .signaled(let signal): return .signalled(signal)
        }
    }
}
