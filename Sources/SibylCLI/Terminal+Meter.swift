import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Terminal {
    /// Draws a microphone level meter on one line of standard error (only on a terminal); nil clears it.
    static func meter(level: Double?, threshold: Double, speaking: Bool, words: String? = nil) {
        guard isatty(STDERR_FILENO) == 1 else { return }
        guard let level else {
            try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K".utf8))
            return
        }
        let width = 30
        // -80 dBFS … 0 dBFS across the bar.
        let filled = max(0, min(width, Int((level + 80) / 80 * Double(width))))
        let mark = max(0, min(width - 1, Int((threshold + 80) / 80 * Double(width))))
        var bar = Array(repeating: "·", count: width)
        for index in 0..<filled { bar[index] = "█" }
        bar[mark] = "|"
        let state = speaking ? "speaking" : "waiting "
        // The words heard so far, as much of their end as fits the line.
        var line = "\(state) \(bar.joined()) \(String(format: "%4.0f dB", level))"
        if let words = words?.trimmingCharacters(in: .whitespacesAndNewlines), !words.isEmpty {
            let room = max(0, columns(of: STDERR_FILENO) - line.count - 4)
            line += " › " + (words.count > room ? "…" + words.suffix(max(0, room - 1)) : words)
        }
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K\(line)".utf8))
    }

    /// The terminal's width in columns (80 when it does not say).
    static func columns(of descriptor: Int32) -> Int {
        var size = winsize()
        guard ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return 80 }
        return Int(size.ws_col)
    }
}
