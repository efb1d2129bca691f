import Foundation
import Tokenizers

/// One timed run of Python tiktoken through `scripts/bench/tiktoken_reference.py`.
struct TiktokenReference {
    let version: String
    let seconds: Double
    let tokens: [Int]

    private struct Summary: Decodable {
        let tiktoken: String
        let tokens: Int
        let seconds: Double
    }

    static func run(
        python: String, encoding: BPETokenizer.Encoding, corpus: URL, tokenizersDirectory: URL, iterations: Int
    ) throws -> TiktokenReference {
        let script = try Scripts.locate("scripts/bench/tiktoken_reference.py")
        let tokensFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("tiktoken-reference-\(ProcessInfo.processInfo.processIdentifier).u32")
        defer { try? FileManager.default.removeItem(at: tokensFile) }
        let output = try Scripts.run(
            URL(fileURLWithPath: "/usr/bin/env"),
            arguments: [
                python, script.path,
                "--encoding", encoding.name,
                "--corpus", corpus.path,
                "--tokenizers-dir", tokenizersDirectory.path,
                "--iterations", String(iterations),
                "--tokens-out", tokensFile.path,
            ]
        )
        guard let line = output.split(separator: "\n").last else {
            throw Scripts.Failure(description: "tiktoken_reference.py printed nothing")
        }
        let summary = try JSONDecoder().decode(Summary.self, from: Data(line.utf8))
        let data = try Data(contentsOf: tokensFile)
        let tokens = data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
        }
        guard tokens.count == summary.tokens else {
            throw Scripts.Failure(description: "tiktoken_reference.py wrote \(tokens.count) ids but reported \(summary.tokens)")
        }
        return TiktokenReference(version: summary.tiktoken, seconds: summary.seconds, tokens: tokens)
    }
}
