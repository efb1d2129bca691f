import Foundation

/// Writes a file to Frame's flash through the REPL: Frame has no file transfer of its own, so a
/// host opens the file, writes it in string literals that each fit one Lua chunk, and closes it.
public struct LuaFileUpload: Sendable, Hashable {
    /// The file's path on Frame (`main.lua`, `data.min.lua`).
    public let path: String
    public let contents: Data

    public init(path: String, contents: Data) {
        self.path = path
        self.contents = contents
    }

    public init(path: String, text: String) {
        self.init(path: path, contents: Data(text.utf8))
    }

    /// The chunks to run in order. Each leaves room for `suffixLength` bytes the caller appends
    /// (for example `;print(…)`, to know when the chunk has run).
    public func chunks(limits: FrameLimits, suffixLength: Int = 0) throws(FrameProtocolError) -> [String] {
        let open = "f=frame.file.open(\(LuaLiteral.quoted(path)),'w')"
        let close = "f:close()"
        let room = limits.maximumLuaLength - suffixLength
        guard open.utf8.count <= room else { throw .tooLong(what: "file name", length: open.utf8.count, limit: room) }
        let writeOverhead = #"f:write("")"#.utf8.count
        let budget = room - writeOverhead
        // The longest escape is four bytes (\ddd); a UTF-8 character is at most four.
        guard budget >= 4 else { throw .tooLong(what: "file chunk", length: writeOverhead + 4, limit: room) }
        var chunks = [open]
        var current = ""
        var currentLength = 0
        for piece in LuaLiteral.pieces(of: contents) {
            if currentLength + piece.utf8.count > budget {
                chunks.append("f:write(\"\(current)\")")
                current = ""
                currentLength = 0
            }
            current += piece
            currentLength += piece.utf8.count
        }
        if !current.isEmpty { chunks.append("f:write(\"\(current)\")") }
        chunks.append(close)
        return chunks
    }
}

/// Lua string literals that survive a trip through Frame's REPL: no raw control bytes (a NUL
/// would end the chunk early), quotes and backslashes escaped, UTF-8 characters kept whole.
public enum LuaLiteral {
    /// `text` as a double-quoted Lua literal.
    public static func quoted(_ text: String) -> String {
        "\"" + pieces(of: Data(text.utf8)).joined() + "\""
    }

    /// The literal's content for `bytes`, one piece per escape or whole character, so a literal
    /// can be cut between any two pieces.
    static func pieces(of bytes: Data) -> [String] {
        var pieces: [String] = []
        pieces.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            switch byte {
            case 0x5C: pieces.append("\\\\")
            case 0x22: pieces.append("\\\"")
            case 0x0A: pieces.append("\\n")
            case 0x0D: pieces.append("\\r")
            case 0x09: pieces.append("\\t")
            case 0x20..<0x7F: pieces.append(String(UnicodeScalar(byte)))
            case 0xC2...0xF4:
                // A whole UTF-8 sequence stays raw; anything that is not one is escaped byte by byte.
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
                let end = bytes.index(index, offsetBy: length, limitedBy: bytes.endIndex) ?? bytes.endIndex
                let sequence = bytes[index..<end]
                if sequence.count == length, let character = String(data: sequence, encoding: .utf8) {
                    pieces.append(character)
                    index = end
                    continue
                }
                pieces.append(decimalEscape(byte))
            default: pieces.append(decimalEscape(byte))
            }
            index = bytes.index(after: index)
        }
        return pieces
    }

    /// `\ddd`, always three digits so a digit after it cannot join it.
    private static func decimalEscape(_ byte: UInt8) -> String {
        let digits = String(byte)
        return "\\" + String(repeating: "0", count: 3 - digits.count) + digits
    }
}
