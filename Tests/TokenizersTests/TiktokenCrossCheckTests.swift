import Foundation
import TestFixtures
import Testing
@testable import Tokenizers

/// The Swift tokenizer against Python tiktoken on thousands of generated texts, both encodings,
/// with special tokens as text and allowed. Runs when `python3` can import tiktoken.
@Suite(
    .timeLimit(.minutes(10)), .enabled(if: TestEnvironment.runsRankFileTests, TestEnvironment.rankFilesMissing),
    .enabled(if: TestEnvironment.pythonHasTiktoken, "python3 with tiktoken is not available (pip install tiktoken)")
)
struct TiktokenCrossCheckTests {
    private func check(_ texts: [String]) throws {
        let reference = try TiktokenReference.ids(
            for: texts, arguments: ["--tokenizers-dir", TestEnvironment.tokenizersDirectory.path]
        )
        for encoding in BPETokenizer.Encoding.allCases {
            try reference.expectMatches(texts, tokenizer: TestEnvironment.tokenizer(encoding))
        }
    }

    @Test func fragmentsMatch() throws {
        try check(VariedText.fragmentTexts(count: 4000, maxFragments: 24, seed: 1))
    }

    @Test func randomCodePointsMatch() throws {
        try check(VariedText.randomScalarTexts(count: 1500, maxLength: 40, seed: 2))
    }

    @Test func longRunsAndProseMatch() throws {
        try check(VariedText.longRuns + VariedText.prose)
    }

    /// The code points on both sides of every change of character class, in contexts that
    /// make each class matter (after a letter, after a capital, before a digit and a newline).
    @Test func classBoundariesMatch() throws {
        var texts: [String] = []
        var chunk = String.UnicodeScalarView()
        for transition in UnicodeClasses.transitions {
            let first = transition >> 8
            for value in [first &- 1, first] {
                guard let scalar = Unicode.Scalar(value) else { continue }
                chunk.append(contentsOf: "a".unicodeScalars)
                chunk.append(scalar)
                chunk.append(contentsOf: " A".unicodeScalars)
                chunk.append(scalar)
                chunk.append(scalar)
                chunk.append(contentsOf: "'s1\n".unicodeScalars)
            }
            if chunk.count > 2_000 {
                texts.append(String(chunk))
                chunk = String.UnicodeScalarView()
            }
        }
        texts.append(String(chunk))
        try check(texts)
    }

    /// The generated class table is what tiktoken's regex engine says, code point by code point.
    @Test func unicodeClassTableMatchesTiktoken() throws {
        let script = try #require(RepositoryFile.locate("scripts/tokenizers/generate-unicode-classes.py"))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--print-transitions"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "generate-unicode-classes.py failed")
        let transitions = try JSONDecoder().decode([UInt32].self, from: data)
        #expect(transitions == UnicodeClasses.transitions, "regenerate with scripts/tokenizers/generate-unicode-classes.py")
    }
}
