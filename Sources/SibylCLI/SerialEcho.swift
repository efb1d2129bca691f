import Foundation
import Synchronization

/// The glasses' serial output (what the device app prints, its tracebacks, the REPL's replies) as
/// terminal lines, set apart from Sibyl's own lines by a dim `serial │` prefix; tracebacks in red.
///
/// Output arrives in arbitrary pieces: whole lines are printed as they complete, and a partial line
/// (a prompt such as `>>> `) once the output has paused.
final class SerialEcho: Sendable {
    private struct State {
        var partial = ""
        var inTraceback = false
        /// Bumped on every piece, so that only the latest pause flushes the partial line.
        var generation = 0
    }

    private let state = Mutex(State())
    private let pause: Duration
    private let printLine: @Sendable (String) -> Void

    init(pause: Duration = .milliseconds(300), printLine: @escaping @Sendable (String) -> Void = { Terminal.print($0) }) {
        self.pause = pause
        self.printLine = printLine
    }

    /// Takes a piece of the serial output.
    func feed(_ text: String) {
        let (lines, generation) = state.withLock { state -> ([String], Int) in
            state.partial += text
            var complete: [String] = []
            // By scalar: "\r\n" is one Character, which a search for "\n" would miss.
            while let newline = state.partial.unicodeScalars.firstIndex(of: "\n") {
                let scalars = state.partial.unicodeScalars
                complete.append(String(scalars[..<newline]))
                state.partial = String(scalars[scalars.index(after: newline)...])
            }
            state.generation += 1
            return (complete.map { Self.format($0, traceback: &state.inTraceback) }, state.generation)
        }
        for line in lines { printLine(line) }
        guard state.withLock({ !$0.partial.isEmpty }) else { return }
        let pause = pause
        Task {
            try? await Task.sleep(for: pause)
            self.flush(ifStill: generation)
        }
    }

    /// Prints what is left of a partial line.
    func flush() {
        flush(ifStill: nil)
    }

    private func flush(ifStill generation: Int?) {
        let line = state.withLock { state -> String? in
            guard generation == nil || generation == state.generation, !state.partial.isEmpty else { return nil }
            defer { state.partial = "" }
            return Self.format(state.partial, traceback: &state.inTraceback)
        }
        if let line { printLine(line) }
    }

    /// One line with its prefix: control characters shown as ^X, a traceback (its header, the
    /// indented frames and the exception line that ends it) in red.
    static func format(_ raw: String, traceback: inout Bool) -> String {
        var text = ""
        for scalar in raw.unicodeScalars {
            switch scalar.value {
            case 0x0D: continue
            case 0x09: text.append("\t")
            case 0..<0x20: text += Terminal.dim("^" + String(UnicodeScalar(UInt8(scalar.value) + 0x40)))
            case 0x7F: text += Terminal.dim("^?")
            default: text.unicodeScalars.append(scalar)
            }
        }
        let plain = String(String.UnicodeScalarView(raw.unicodeScalars.filter { $0.value >= 0x20 }))
        var red = false
        if plain.contains("Traceback (most recent call last):") {
            traceback = true
            red = true
        } else if traceback {
            red = true
            // Frames are indented; the first unindented line is the exception, and ends it.
            if !plain.hasPrefix(" ") { traceback = false }
        }
        return Terminal.dim("serial │ ") + (red ? Terminal.red(text) : text)
    }
}
