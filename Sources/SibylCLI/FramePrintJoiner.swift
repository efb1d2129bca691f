import Foundation
import FrameProtocol

/// Frame's prints as a terminal shows them: `print(a, b)` arrives as "a", "\t", "b" with no
/// newline, so a newline goes between two notifications that are not a tab, and at the end.
struct FramePrintJoiner: Sendable {
    private var lastWasText = false
    private var lastEndedLine = true

    /// The text to show for a notification; data ones are shown as hex.
    mutating func add(_ notification: FrameNotification) -> String {
        switch notification {
        case .printed(let text):
            if text == "\t" {
                lastWasText = false
                lastEndedLine = false
                return text
            }
            let start = lastWasText && !lastEndedLine ? "\n" : ""
            lastWasText = true
            lastEndedLine = text.hasSuffix("\n")
            return start + text
        case .data(let bytes):
            let start = lastEndedLine ? "" : "\n"
            lastWasText = false
            lastEndedLine = true
            return start + "[data " + bytes.map { String(format: "%02x", $0) }.joined(separator: " ") + "]\n"
        }
    }

    /// A newline if the last print left a line open.
    mutating func finish() -> String {
        defer { lastWasText = false; lastEndedLine = true }
        return lastEndedLine ? "" : "\n"
    }
}

extension Data {
    /// Bytes from pairs of hex digits; nil for anything else.
    init?(hexString: String) {
        let digits = Array(hexString.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes = [UInt8]()
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(decoding: digits[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
            bytes.append(byte)
        }
        self.init(bytes)
    }
}
