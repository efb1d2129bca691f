import Foundation
import TestFixtures

/// The default corpus, made by the project's script.
enum Corpus {
    /// Runs `scripts/bench/make-english-corpus.sh` (a few seconds; deterministic) and returns the file it made.
    static func makeDefault() throws -> URL {
        let script = try Scripts.locate("scripts/bench/make-english-corpus.sh")
        let output = try Scripts.run(URL(fileURLWithPath: "/bin/bash"), arguments: [script.path])
        guard let path = output.split(separator: "\n").last.map(String.init), !path.isEmpty else {
            throw Scripts.Failure(description: "make-english-corpus.sh printed no path")
        }
        return URL(fileURLWithPath: path)
    }
}

/// Finding and running the project's scripts.
enum Scripts {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A file of this repository, found from this source file or the working directory, so
    /// `swift run` works from the package root or anywhere inside it.
    static func locate(_ relativePath: String) throws -> URL {
        guard let file = RepositoryFile.locate(relativePath) else {
            throw Failure(description: "\(relativePath) not found above the working directory; run from the package root")
        }
        return file
    }

    /// Runs a program to completion and returns its standard output; its standard error goes
    /// straight to ours, so its own diagnostics reach the user.
    static func run(_ executable: URL, arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.standardError
        try process.run()
        // Read before waiting, so a full pipe cannot stall the child.
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(executable.lastPathComponent) \(arguments.joined(separator: " ")) "
                + "failed with status \(process.terminationStatus) (its messages are above)")
        }
        return String(decoding: outputData, as: UTF8.self)
    }
}
