import Foundation
import TestFixtures
import Testing
import Tokenizers

/// What the tests need from outside the package: the rank files, the shared fixtures, and
/// Python tiktoken. Tests that need the rank files are skipped when they are absent, unless
/// `SIBYL_REQUIRE_ENGINES=1` (as `scripts/test.sh` sets), which makes their absence a failure.
enum TestEnvironment {
    static let environment = ProcessInfo.processInfo.environment
    static let enginesRequired = environment["SIBYL_REQUIRE_ENGINES"] == "1"

    /// `SIBYL_TOKENIZERS_DIR`, else `$SIBYL_ENGINES/tokenizers`, else `~/.cache/sibyl/engines/tokenizers`.
    static let tokenizersDirectory = BPETokenizer.defaultDirectory(environment: environment)

    static let rankFilesPresent = BPETokenizer.Encoding.allCases.allSatisfy {
        FileManager.default.fileExists(atPath: tokenizersDirectory.appendingPathComponent($0.fileName).path)
    }

    /// Whether tests that need the rank files run (and fail loudly if the files are missing).
    static let runsRankFileTests = rankFilesPresent || enginesRequired

    /// Why those tests are skipped.
    static let rankFilesMissing: Comment = """
        the rank files are not in \(tokenizersDirectory.path) (set SIBYL_TOKENIZERS_DIR or SIBYL_ENGINES, \
        or install them; SIBYL_REQUIRE_ENGINES=1 makes this a failure)
        """

    private static let cl100k = Result { () throws(BPETokenizerError) in
        try BPETokenizer.load(encoding: .cl100kBase, directory: tokenizersDirectory)
    }
    private static let o200k = Result { () throws(BPETokenizerError) in
        try BPETokenizer.load(encoding: .o200kBase, directory: tokenizersDirectory)
    }

    /// The tokenizer for `encoding`, loaded once per test process.
    static func tokenizer(_ encoding: BPETokenizer.Encoding) throws -> BPETokenizer {
        switch encoding {
        case .cl100kBase: try cl100k.get()
        case .o200kBase: try o200k.get()
        }
    }

    /// The directory of shared fixtures: `SIBYL_FIXTURES` if set, else the first `shared/fixtures`
    /// found walking up from this source file, then from the working directory.
    static let fixturesDirectory: URL? = {
        if let configured = environment["SIBYL_FIXTURES"], !configured.isEmpty {
            return URL(fileURLWithPath: configured, isDirectory: true)
        }
        return RepositoryFile.locate("shared/fixtures")
    }()

    /// The tiktoken reference fixture, when the shared fixtures are at hand.
    static let referenceFixture: URL? = fixturesDirectory
        .map { $0.appendingPathComponent("tiktoken-reference.json") }
        .flatMap { FileManager.default.fileExists(atPath: $0.path) ? $0 : nil }

    /// `scripts/tokenizers/tiktoken_crosscheck.py` in this repository.
    static let crossCheckScript = RepositoryFile.locate("scripts/tokenizers/tiktoken_crosscheck.py")

    /// Whether `python3` can import tiktoken (checked once).
    static let pythonHasTiktoken: Bool = {
        guard crossCheckScript != nil else { return false }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import tiktoken"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}
