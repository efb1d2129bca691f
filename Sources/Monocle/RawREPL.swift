public import Foundation

/// The bytes of MicroPython's raw REPL, and parsing of its replies.
public enum RawREPL {
    /// ^C ^C ^A: stop whatever runs, then enter raw mode.
    public static let enter: [UInt8] = [0x03, 0x03, 0x01]
    /// What the device prints on entering raw mode.
    public static let banner = Array("raw REPL; CTRL-B to exit\r\n>".utf8)
    /// A lone ^D on an empty raw line: soft reset, which runs `main.py` again.
    public static let softReset: [UInt8] = [0x04]
    /// Ctrl-\: reboot into safe mode (without running `main.py`) on Monocle.
    public static let safeMode: UInt8 = 0x1C

    /// The bytes that run `code`.
    public static func command(_ code: String) -> Data {
        Data(code.utf8) + [0x04]
    }

    /// The reply to one command: `OK`, the output, ^D, the exception text, ^D, `>`.
    public struct Reply: Sendable, Hashable {
        /// What the command printed, with the device's `\r\n` turned into `\n`.
        public var output: String
        /// The traceback, empty when the command succeeded.
        public var error: String

        public var succeeded: Bool { error.isEmpty }
    }

    /// Finds a complete reply in the bytes received since the command was sent.
    ///
    /// Anything before `OK` (a stray banner, a state print from the app) is skipped. Returns nil while
    /// the reply is incomplete.
    public static func reply(in bytes: [UInt8]) -> Reply? {
        guard let ok = find([0x4F, 0x4B], in: bytes, from: 0) else { return nil }
        let outputStart = ok + 2
        guard let firstEnd = bytes[outputStart...].firstIndex(of: 0x04) else { return nil }
        guard let secondEnd = bytes[(firstEnd + 1)...].firstIndex(of: 0x04) else { return nil }
        guard secondEnd + 1 < bytes.count, bytes[secondEnd + 1] == UInt8(ascii: ">") else { return nil }
        return Reply(output: text(bytes[outputStart..<firstEnd]), error: text(bytes[(firstEnd + 1)..<secondEnd]))
    }

    /// Whether the raw-mode banner has arrived.
    public static func containsBanner(_ bytes: [UInt8]) -> Bool {
        find(banner, in: bytes, from: 0) != nil
    }

    /// A Monocle version (`v23.248.0754`) anywhere in a reply.
    ///
    /// The original apps took the first line of the reply, so a stray second banner made the version
    /// "unknown" and started a needless firmware update.
    public static func version(in output: String) -> String? {
        let pattern = /v\d{2}\.\d{3}\.\d{4}/
        return output.firstMatch(of: pattern).map { String($0.output) }
    }

    static func text(_ bytes: ArraySlice<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n")
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0], Array(haystack[index..<(index + needle.count)]) == needle { return index }
            index += 1
        }
        return nil
    }
}
