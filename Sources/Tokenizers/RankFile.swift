import Foundation

/// Reads a `.tiktoken` rank file: one token per line, `base64(bytes) SPACE rank`.
enum RankFile {
    /// The tokens of the file at `url`, laid end to end in rank order (see `RankTable.init`).
    static func read(_ url: URL) throws(BPETokenizerError) -> (bytes: [UInt8], offsets: [Int32]) {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw .rankFileUnreadable(path: url.path, reason: error.localizedDescription)
        }
        let parsed = data.withUnsafeBytes { raw in
            Result { () throws(BPETokenizerError) in try parse(raw.bindMemory(to: UInt8.self), path: url.path) }
        }
        return try parsed.get()
    }

    /// Parses a rank file's contents; `path` only names the file in errors.
    static func parse(
        _ text: UnsafeBufferPointer<UInt8>, path: String
    ) throws(BPETokenizerError) -> (bytes: [UInt8], offsets: [Int32]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        // Per line, in file order: the rank, and where its bytes start in `bytes`.
        var entries: [(rank: Int, start: Int)] = []
        var lineStart = 0
        var line = 0
        while lineStart < text.count {
            line += 1
            var lineEnd = lineStart
            while lineEnd < text.count, text[lineEnd] != 0x0A { lineEnd += 1 }
            var contentEnd = lineEnd
            if contentEnd > lineStart, text[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            defer { lineStart = lineEnd + 1 }
            if contentEnd == lineStart { continue }

            var space = lineStart
            while space < contentEnd, text[space] != 0x20 { space += 1 }
            guard space < contentEnd else {
                throw .malformedRankFile(path: path, line: line, reason: "no space between token and rank")
            }
            let start = bytes.count
            guard decodeBase64(text, from: lineStart, to: space, into: &bytes), bytes.count > start else {
                throw .malformedRankFile(path: path, line: line, reason: "the token is not valid base64")
            }
            guard let rank = decimal(text, from: space + 1, to: contentEnd) else {
                throw .malformedRankFile(path: path, line: line, reason: "the rank is not a number")
            }
            entries.append((rank, start))
        }
        return try order(entries, bytes: bytes, path: path)
    }

    /// Lays the tokens out in rank order, checking that the ranks are exactly 0 to n - 1.
    private static func order(
        _ entries: [(rank: Int, start: Int)], bytes: [UInt8], path: String
    ) throws(BPETokenizerError) -> (bytes: [UInt8], offsets: [Int32]) {
        guard bytes.count < Int(Int32.max) else {
            throw .malformedRankFile(path: path, line: entries.count, reason: "the file is too large")
        }
        let inOrder = entries.indices.allSatisfy { entries[$0].rank == $0 }
        if inOrder {
            var offsets = entries.map { Int32($0.start) }
            offsets.append(Int32(bytes.count))
            return (bytes, offsets)
        }
        // Official files are sorted by rank; accept any order, as tiktoken does.
        var lineOfRank = [Int](repeating: -1, count: entries.count)
        for (line, entry) in entries.enumerated() {
            guard entry.rank >= 0, entry.rank < entries.count else {
                throw .malformedRankFile(
                    path: path, line: line + 1, reason: "rank \(entry.rank) is outside 0..<\(entries.count)")
            }
            guard lineOfRank[entry.rank] < 0 else {
                throw .malformedRankFile(path: path, line: line + 1, reason: "rank \(entry.rank) appears twice")
            }
            lineOfRank[entry.rank] = line
        }
        var ordered: [UInt8] = []
        ordered.reserveCapacity(bytes.count)
        var offsets: [Int32] = []
        offsets.reserveCapacity(entries.count + 1)
        for line in lineOfRank {
            let start = entries[line].start
            let end = line + 1 < entries.count ? entries[line + 1].start : bytes.count
            offsets.append(Int32(ordered.count))
            ordered.append(contentsOf: bytes[start..<end])
        }
        offsets.append(Int32(ordered.count))
        return (ordered, offsets)
    }

    private static func decimal(_ text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int? {
        guard start < end, end - start <= 9 else { return nil }
        var value = 0
        for index in start..<end {
            let digit = Int(text[index]) - 0x30
            guard digit >= 0, digit <= 9 else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// Standard base64 with `=` padding; appends the decoded bytes, or returns false.
    private static func decodeBase64(
        _ text: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int, into output: inout [UInt8]
    ) -> Bool {
        var accumulator: UInt32 = 0
        var bits = 0
        var index = start
        while index < end {
            let character = text[index]
            if character == UInt8(ascii: "=") { break }
            let value = base64Values[Int(character)]
            guard value != 0xFF else { return false }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                output.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
            index += 1
        }
        while index < end {
            guard text[index] == UInt8(ascii: "=") else { return false }
            index += 1
        }
        return true
    }

    private static let base64Values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()
}
