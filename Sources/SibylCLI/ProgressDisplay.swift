import Foundation
import LocalEngines
import SibylApp
import Synchronization

/// Shows install progress: a bar redrawn in place on a terminal, plain step lines otherwise.
final class ProgressDisplay: Sendable {
    private struct State {
        var step = ""
        var fraction: Double?
        var detail = ""
        var lastDraw = ContinuousClock.now - .seconds(1)
        var lastPlainPercent = -1
    }

    private let state = Mutex(State())
    private let live = Terminal.stderrStyled

    /// The observer to hand to the installer.
    var observer: InstallObserver {
        { [self] event in self.handle(event) }
    }

    private func handle(_ event: InstallEvent) {
        state.withLock { state in
            switch event {
            case .step(let text):
                clearLine()
                state.step = text
                state.fraction = nil
                state.detail = ""
                state.lastPlainPercent = -1
                if !live { Terminal.error("• \(text)") } else { draw(&state, force: true) }
            case .progress(let fraction, let detail):
                state.fraction = max(0, min(1, fraction))
                state.detail = detail
                if live {
                    draw(&state, force: false)
                } else {
                    let percent = Int(fraction * 100) / 25 * 25
                    if percent > state.lastPlainPercent {
                        state.lastPlainPercent = percent
                        Terminal.error("  \(percent)% \(detail)")
                    }
                }
            case .output(let line):
                if live, state.fraction == nil {
                    state.detail = String(line.prefix(70))
                    draw(&state, force: false)
                }
            case .skipped(let text):
                clearLine()
                Terminal.error(Terminal.dim("✓ \(text): already in place", stderr: true))
            case .finished(let text):
                clearLine()
                Terminal.error(Terminal.green("✓", stderr: true) + " \(text)")
            }
        }
    }

    private func draw(_ state: inout State, force: Bool) {
        let now = ContinuousClock.now
        guard force || now - state.lastDraw > .milliseconds(100) else { return }
        state.lastDraw = now
        var line = state.step
        if let fraction = state.fraction {
            let width = 24
            let filled = Int(fraction * Double(width))
            line += "  [" + String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled) + "] \(Int(fraction * 100))%"
        }
        if !state.detail.isEmpty { line += "  " + state.detail }
        let columns = Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 120
        try? FileHandle.standardError.write(contentsOf: Data(("\r\u{1B}[2K" + String(line.prefix(columns - 1))).utf8))
    }

    private func clearLine() {
        if live { try? FileHandle.standardError.write(contentsOf: Data("\r\u{1B}[2K".utf8)) }
    }

    /// Ends the display (clears a half-drawn bar).
    func finish() {
        state.withLock { _ in clearLine() }
    }
}

/// Shows the installs a command starts on first use (a missing engine, `models.auto_install`) with
/// the same bar as `sibyl models install`, and says how to be asked instead.
enum AutoInstallDisplay {
    /// Draws `installs` until it ends.
    static func follow(_ installs: AsyncStream<LiveEvent>) async {
        let display = ProgressDisplay()
        var announced: Set<String> = []
        var step = ""
        for await event in installs {
            guard case .install(let progress) = event else { continue }
            if announced.insert(progress.component).inserted {
                Terminal.error("The local \(progress.component) engine is not installed yet: installing it now, as `sibyl models install \(progress.component)` would (`sibyl config set models.auto_install off` asks you to instead).")
            }
            switch progress.state {
            case .running:
                if progress.step != step {
                    step = progress.step
                    display.observer(.step(step))
                }
                if let fraction = progress.fraction { display.observer(.progress(fraction, detail: progress.detail)) }
            case .finished:
                display.observer(.finished("Installed \(progress.title)"))
                step = ""
            case .failed:
                display.finish()
                step = ""
            }
        }
        display.finish()
    }
}
