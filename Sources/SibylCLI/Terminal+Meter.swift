import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension Terminal {
    /// Draws a microphone level meter on one line of standard error (only on a terminal); nil clears it.
    static func meter(level: Double?, threshold: Double, speaking: Bool) {
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
        try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[K\(state) \(bar.joined()) \(String(format: "%4.0f dB", level))".utf8))
    }
}
