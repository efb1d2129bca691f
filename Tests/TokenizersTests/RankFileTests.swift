import Foundation
import Testing
@testable import Tokenizers

/// Reading rank files: the format, and errors that say what is wrong and where.
@Suite(.timeLimit(.minutes(10)))
struct RankFileTests {
    private func parse(_ text: String) throws(BPETokenizerError) -> (bytes: [UInt8], offsets: [Int32]) {
        let bytes = Array(text.utf8)
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(BPETokenizerError) in try RankFile.parse(buffer, path: "test.tiktoken") }
        }
        return try result.get()
    }

    @Test func parsesBase64AndRanksInAnyOrder() throws {
        // "IQ==" is "!", "aGk=" is "hi", "YWJj" is "abc".
        let inOrder = try parse("IQ== 0\naGk= 1\nYWJj 2\n")
        #expect(inOrder.bytes == Array("!hiabc".utf8))
        #expect(inOrder.offsets == [0, 1, 3, 6])
        let shuffled = try parse("YWJj 2\r\nIQ== 0\r\n\r\naGk= 1")
        #expect(shuffled.bytes == Array("!hiabc".utf8))
        #expect(shuffled.offsets == [0, 1, 3, 6])
    }

    @Test func malformedLinesAreReportedWithTheirNumber() {
        #expect(throws: BPETokenizerError.malformedRankFile(path: "test.tiktoken", line: 2, reason: "no space between token and rank")) {
            try parse("IQ== 0\naGk=\n")
        }
        #expect(throws: BPETokenizerError.malformedRankFile(path: "test.tiktoken", line: 1, reason: "the token is not valid base64")) {
            try parse("I*== 0\n")
        }
        #expect(throws: BPETokenizerError.malformedRankFile(path: "test.tiktoken", line: 1, reason: "the rank is not a number")) {
            try parse("IQ== x\n")
        }
        #expect(throws: BPETokenizerError.malformedRankFile(path: "test.tiktoken", line: 2, reason: "rank 0 appears twice")) {
            try parse("IQ== 0\naGk= 0\n")
        }
        #expect(throws: BPETokenizerError.malformedRankFile(path: "test.tiktoken", line: 1, reason: "rank 5 is outside 0..<2")) {
            try parse("IQ== 5\naGk= 1\n")
        }
    }

    @Test func aMissingFileSaysWhereAndWhatToDo() {
        let directory = URL(fileURLWithPath: "/nonexistent/tokenizers")
        #expect(throws: BPETokenizerError.rankFileMissing(encoding: "cl100k_base", path: "/nonexistent/tokenizers/cl100k_base.tiktoken")) {
            try BPETokenizer.load(encoding: .cl100kBase, directory: directory)
        }
        let message = BPETokenizerError.rankFileMissing(encoding: "cl100k_base", path: "/x").description
        #expect(message.contains("SIBYL_TOKENIZERS_DIR"))
    }

    @Test func aFileOfTheWrongSizeIsRefused() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rank-file-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let lines = (0..<256).map { "\(Data([UInt8($0)]).base64EncodedString()) \($0)" }
        try lines.joined(separator: "\n").write(
            to: directory.appendingPathComponent("o200k_base.tiktoken"), atomically: true, encoding: .utf8)
        #expect(throws: BPETokenizerError.unexpectedRankCount(
            path: directory.appendingPathComponent("o200k_base.tiktoken").path, expected: 199_998, found: 256)
        ) {
            try BPETokenizer.load(encoding: .o200kBase, directory: directory)
        }
    }

    @Test func rankTableFindsEveryTokenAndRefusesDuplicates() throws {
        // The 256 bytes, then some longer tokens, including ones past the packed 8 bytes.
        var tokens = (0..<256).map { [UInt8($0)] }
        tokens += ["he", "hello", "hello wo", "hello world", "a much longer token of thirty two"].map { Array($0.utf8) }
        var bytes: [UInt8] = []
        var offsets: [Int32] = []
        for token in tokens {
            offsets.append(Int32(bytes.count))
            bytes += token
        }
        offsets.append(Int32(bytes.count))
        let table = try RankTable(bytes: bytes, offsets: offsets)
        #expect(table.count == tokens.count)
        #expect(table.maxTokenLength == 33)
        for (rank, token) in tokens.enumerated() {
            let padded = token + [UInt8](repeating: 0xAA, count: 8)
            padded.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                #expect(table.lookup(base, token.count, limit: base + buffer.count) == UInt32(rank))
                // Without room for whole-word loads the table must read byte by byte.
                #expect(table.lookup(base, token.count, limit: base + token.count) == UInt32(rank))
            }
            #expect(table.bytes(of: rank).map(Array.init) == token)
        }
        let missing = Array("hello worle".utf8)
        missing.withUnsafeBufferPointer { buffer in
            #expect(table.lookup(buffer.baseAddress!, buffer.count, limit: buffer.baseAddress! + buffer.count) == nil)
        }
        #expect(throws: RankTableError.self) {
            try RankTable(bytes: bytes + [0x68, 0x65], offsets: offsets + [Int32(bytes.count + 2)])
        }
    }

    @Test func theDefaultDirectoryFollowsTheEnvironment() {
        #expect(BPETokenizer.defaultDirectory(environment: ["SIBYL_TOKENIZERS_DIR": "/a", "SIBYL_ENGINES": "/b", "HOME": "/h"]).path == "/a")
        #expect(BPETokenizer.defaultDirectory(environment: ["SIBYL_ENGINES": "/b", "HOME": "/h"]).path == "/b/tokenizers")
        #expect(BPETokenizer.defaultDirectory(environment: ["HOME": "/h"]).path == "/h/.cache/sibyl/engines/tokenizers")
    }
}
