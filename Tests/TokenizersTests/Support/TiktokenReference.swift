import Foundation
import Testing
import Tokenizers

/// Python tiktoken's ids for texts, through `scripts/tokenizers/tiktoken_crosscheck.py`.
struct TiktokenReference: Decodable {
    /// tiktoken's version.
    let tiktoken: String
    /// Per key (`cl100k_base`, `cl100k_base+special`, …), the ids of each text.
    let ids: [String: [[Int]]]

    /// Runs the script on `texts` with extra `arguments` (`--tokenizers-dir DIR` or `--ranks FILE`).
    static func ids(for texts: [String], arguments: [String]) throws -> TiktokenReference {
        let script = try #require(TestEnvironment.crossCheckScript)
        let input = FileManager.default.temporaryDirectory
            .appendingPathComponent("tiktoken-crosscheck-\(UUID().uuidString).json")
        try JSONSerialization.data(withJSONObject: texts).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--input", input.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "tiktoken_crosscheck.py failed")
        return try JSONDecoder().decode(TiktokenReference.self, from: data)
    }

    /// Records an issue for each text `tokenizer` encodes differently, ordinary or with every
    /// special token allowed, and checks its counts.
    func expectMatches(_ texts: [String], tokenizer: BPETokenizer) throws {
        let name = tokenizer.encoding.name
        let allSpecial = Set(tokenizer.specialTokens.keys)
        let ordinary = try #require(ids[name])
        let special = try #require(ids[name + "+special"])
        try #require(ordinary.count == texts.count && special.count == texts.count)
        var mismatches = 0
        for (index, text) in texts.enumerated() {
            let encoded = tokenizer.encodeOrdinary(text)
            let encodedWithSpecial = tokenizer.encode(text, allowedSpecial: allSpecial)
            if encoded != ordinary[index] || encodedWithSpecial != special[index] {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record("""
                        \(name) text \(index) \(text.debugDescription): \(encoded) (with special tokens \(encodedWithSpecial)) \
                        ≠ tiktoken \(ordinary[index]) (\(special[index]))
                        """)
                }
            }
            #expect(tokenizer.count(text) == ordinary[index].count)
        }
        #expect(mismatches == 0, "\(mismatches) of \(texts.count) texts differ from tiktoken \(tiktoken) in \(name)")
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        tiktoken = try container.decode(String.self, forKey: Key("tiktoken"))
        var ids: [String: [[Int]]] = [:]
        for key in container.allKeys where key.stringValue != "tiktoken" {
            ids[key.stringValue] = try container.decode([[Int]].self, forKey: key)
        }
        self.ids = ids
    }

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
