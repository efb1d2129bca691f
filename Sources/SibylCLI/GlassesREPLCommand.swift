import ArgumentParser
import Assistant
import Foundation
import SibylApp
import Synchronization

extension GlassesCommand {
    /// `sibyl glasses repl`.
    struct REPL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "An interactive REPL on the glasses.",
            discussion: """
            Every key goes to the glasses' MicroPython REPL, which echoes and edits: Ctrl-C interrupts the running \
            program, Ctrl-E enters paste mode (Ctrl-D runs what was pasted), Ctrl-A raw mode, Ctrl-B back to the \
            friendly prompt, Ctrl-D on an empty line a soft reset. Ctrl-] leaves. From a pipe, the lines are typed \
            one after the other, and the REPL ends when the input ends and the glasses are quiet.

            With --watch DIR, the directory's files are uploaded and the glasses soft-reset into them; whenever a \
            file there changes, it is uploaded again and the glasses reset.

            On Frame (--kind frame), whose Lua REPL echoes nothing, the prompt is lua> and each line goes as one \
            chunk; what it prints comes back as it is printed, and an error as Frame sends it. Ctrl-C sends a break \
            (0x03) to what runs, twice leaves; Ctrl-D leaves. --watch breaks the app, uploads, and resets (0x04), \
            so main.lua starts again.
            """
        )

        @OptionGroup var global: GlobalOptions
        @OptionGroup var target: Target

        @Option(help: ArgumentHelp("Upload this directory's files now and whenever they change, then soft-reset.", valueName: "DIR"))
        var watch: String?

        func run() async throws {
            try await global.withRuntime { runtime in
                let watched = try watch.map { try WatchedDirectory(path: $0) }
                let glasses = try await target.open(runtime)
                switch glasses.session.dialect {
                case .microPython: await Self.runMicroPython(glasses, watched: watched)
                case .lua: await Self.runLua(glasses, watched: watched)
                }
            }
        }

        /// MicroPython's REPL, key by key: the glasses echo and edit.
        static func runMicroPython(_ glasses: OpenGlasses, watched: WatchedDirectory?) async {
            let session = glasses.session
            Terminal.error(Terminal.dim("Connected to \(session.name). Ctrl-C interrupts the program, Ctrl-E pastes, Ctrl-] leaves.", stderr: true))
            let quiet = QuietClock()
            let printing = Task {
                for await bytes in session.serialOutput {
                    quiet.touch()
                    Terminal.write(bytes)
                }
            }
            let (noticing, watching) = follow(session, watched: watched)
            if watched == nil {
                // A booting app greets by itself; glasses that say nothing get asked for the
                // friendly prompt (Ctrl-B: its banner).
                await quiet.waitUntilQuiet(for: .milliseconds(500), atMost: .seconds(3))
                if !quiet.touched { try? await session.type(Data([0x02])) }
            }
            let keyboard = KeyboardInput()
            let stop = StopSignal()
            Interrupts.shared.onInterrupt { stop.fire() }
            let typing = Task {
                for await keys in keyboard.keys {
                    if let quit = keys.firstIndex(of: 0x1D) {
                        if quit > keys.startIndex { try? await session.type(keys[keys.startIndex..<quit]) }
                        stop.fire()
                        return
                    }
                    do {
                        try await session.type(keys)
                    } catch {
                        Terminal.error(Terminal.red("error:", stderr: true) + " " + error.localizedDescription)
                        stop.fire()
                        return
                    }
                }
                // The end of piped input: wait for the glasses to answer it all, or for --watch to be stopped.
                if watched == nil {
                    await quiet.waitUntilQuiet(for: .milliseconds(1_500), atMost: .seconds(120))
                    stop.fire()
                }
            }
            await stop.wait()
            keyboard.restore()
            typing.cancel()
            watching.cancel()
            await glasses.close()
            printing.cancel()
            noticing.cancel()
            Terminal.print()
        }

        /// Frame's REPL, line by line: Frame echoes nothing and has no prompt, so the prompt is drawn
        /// here, each line goes as one Lua chunk, and what it prints comes back as it is printed.
        static func runLua(_ glasses: OpenGlasses, watched: WatchedDirectory?) async {
            let session = glasses.session
            Terminal.error(Terminal.dim("Connected to \(session.name): Lua, one line at a time. Ctrl-C breaks what runs (twice leaves), Ctrl-D leaves.", stderr: true))
            // The session ends each line's output with an empty piece: the next prompt comes after it.
            let shown = LinesShown()
            let printing = Task {
                for await bytes in session.serialOutput {
                    if bytes.isEmpty { shown.lineEnded() } else { Terminal.write(bytes) }
                }
                shown.lineEnded()
            }
            let (noticing, watching) = follow(session, watched: watched)
            let stop = StopSignal()
            let lastInterrupt = Mutex<ContinuousClock.Instant?>(nil)
            Interrupts.shared.onInterrupt {
                let now = ContinuousClock.now
                let again = lastInterrupt.withLock { last in
                    defer { last = now }
                    return last.map { now - $0 < .seconds(2) } ?? false
                }
                if again { stop.fire(); return }
                Terminal.error(Terminal.dim("[break sent; Ctrl-C again to leave]", stderr: true))
                Task { try? await session.interrupt() }
            }
            let reading = Task {
                let lines = Terminal.lines { "lua> " }
                Terminal.requestLine()
                for await line in lines {
                    do {
                        try await session.type(Data((line + "\n").utf8))
                        await shown.waitForLineEnd()
                    } catch {
                        Terminal.error(Terminal.red("error:", stderr: true) + " " + error.localizedDescription)
                        stop.fire()
                        return
                    }
                    Terminal.requestLine()
                }
                // The end of input ends the REPL, except while --watch keeps uploading.
                if watched == nil { stop.fire() }
            }
            await stop.wait()
            Interrupts.shared.onInterrupt(nil)
            reading.cancel()
            watching.cancel()
            await glasses.close()
            printing.cancel()
            noticing.cancel()
            Terminal.print()
        }

        /// Shows the session's notices, and keeps `watched` uploaded.
        private static func follow(_ session: GlassesREPLSession, watched: WatchedDirectory?) -> (notices: Task<Void, Never>, watching: Task<Void, Never>) {
            let noticing = Task {
                for await notice in session.notices { Terminal.error(Terminal.dim("[\(notice)]", stderr: true)) }
            }
            let watching = Task {
                guard let watched else { return }
                await watched.keepUploading(to: session)
            }
            return (noticing, watching)
        }
    }
}

/// The typed lines whose output has all been shown, so the next prompt comes after it.
final class LinesShown: Sendable {
    private let state = Mutex<(ended: Int, waited: Int, waiting: CheckedContinuation<Void, Never>?)>((0, 0, nil))

    /// A typed line's output has ended.
    func lineEnded() {
        let waiting = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.ended += 1
            guard state.ended >= state.waited else { return nil }
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?.resume()
    }

    /// Waits until the line typed last has ended.
    func waitForLineEnd() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Bool in
                state.waited += 1
                if state.ended >= state.waited { return true }
                state.waiting = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
