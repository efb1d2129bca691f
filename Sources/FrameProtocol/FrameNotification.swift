import Foundation

/// One notification from Frame: data (`frame.bluetooth.send`, first byte 0x01) or printed text.
public enum FrameNotification: Sendable, Hashable {
    /// What `frame.bluetooth.send` sent, without the 0x01 the firmware puts in front.
    case data(Data)
    /// Text from `print`: one notification per argument, a separate "\t" between arguments, no newline.
    case printed(String)

    public init(_ bytes: Data) {
        if bytes.first == FrameWrite.dataPrefix {
            self = .data(Data(bytes.dropFirst()))
        } else {
            self = .printed(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Whether this is a device app's acknowledgement of one message packet: `01 00` from
    /// frame-msg 5.x's data.lua, `01 01 00 00` from the brilliant-msg generation.
    public var isAcknowledgement: Bool {
        guard case .data(let payload) = self else { return false }
        return payload == Data([0x00]) || payload == Data([0x01, 0x00, 0x00])
    }

    /// Whether this is a device app's report that it failed to take a message packet.
    public var isNegativeAcknowledgement: Bool {
        guard case .data(let payload) = self else { return false }
        return payload == Data([0x01]) || payload == Data([0x01, 0x00, 0x01])
    }
}

/// A Lua error as Frame prints it: `[string "frame.display.text(...pri..."]:1: message` for a
/// chunk sent over Bluetooth, `main.lua:12: message` for a file.
public struct LuaError: Sendable, Hashable, CustomStringConvertible {
    /// The chunk's name as Lua shows it (`[string "…"]`, or a file name).
    public let source: String
    public let line: Int?
    public let message: String

    public init(source: String, line: Int?, message: String) {
        self.source = source
        self.line = line
        self.message = message
    }

    /// Reads an error text; nil when the text has no `source:line:` prefix.
    public init?(parsing text: String) {
        let rest: Substring
        let source: String
        if text.hasPrefix("[string \""), let end = text.range(of: "\"]:") {
            source = String(text[..<text.index(end.lowerBound, offsetBy: 2)])
            rest = text[end.upperBound...]
        } else if let colon = text.firstIndex(of: ":"), !text[..<colon].contains(" "), !text[..<colon].isEmpty {
            source = String(text[..<colon])
            rest = text[text.index(after: colon)...]
        } else {
            return nil
        }
        guard let colon = rest.firstIndex(of: ":"), let line = Int(rest[..<colon]) else { return nil }
        self.init(source: source, line: line, message: String(rest[rest.index(after: colon)...].drop { $0 == " " }))
    }

    public var description: String {
        "\(source):\(line.map(String.init) ?? "?"): \(message)"
    }

    /// The name Lua 5.4 gives a chunk loaded from a string (`luaO_chunkid` with the default
    /// 60-byte `LUA_IDSIZE`): the whole source when it is one short line, otherwise its first
    /// line cut to 45 bytes and "...". Errors in a chunk sent to Frame start with this.
    public static func chunkName(ofSource source: String) -> String {
        let bytes = Array(source.utf8)
        let room = 45
        let newline = bytes.firstIndex(of: 0x0A)
        let shown: [UInt8]
        if bytes.count < room && newline == nil {
            shown = bytes
        } else {
            shown = Array(bytes[..<min(newline ?? bytes.count, room)]) + Array("...".utf8)
        }
        return "[string \"" + String(decoding: shown, as: UTF8.self) + "\"]"
    }
}
