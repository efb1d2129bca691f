import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import Monocle
import MonocleBluetooth
import MonocleEmulator
import SibylConfig
import SibylCore
import Synchronization

/// `sibyl glasses`: Monocle or Frame glasses: link them to Sibyl, and work on their REPL and files.
struct GlassesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glasses",
        abstract: "Ask through Monocle or Frame glasses; work on their REPL and files, and see their screen.",
        discussion: """
        scan, pair and connect work for both Monocle and Frame (pairing remembers which kind answered). \
        repl, exec, files, screen and emulate are for device-app authors: they reach the paired glasses over \
        Bluetooth, or with --emulator the virtual ones (--kind monocle or frame), whose files are kept between runs. Examples:
          sibyl glasses pair && sibyl glasses connect
          sibyl glasses connect --emulator --kind frame
          sibyl glasses repl --emulator
          sibyl glasses repl --emulator --watch my-app/
          sibyl glasses exec "import device; print(device.VERSION)"
          sibyl glasses files put main.py
          sibyl glasses screen --emulator --scripts my-app/ --png screen.png
          sibyl glasses repl --emulator --kind frame --watch my-lua-app/
          sibyl glasses emulate --kind frame --app my-lua-app/
        """,
        subcommands: [Scan.self, Pair.self, Connect.self, REPL.self, Exec.self, Files.self, Screen.self, Emulate.self, Update.self]
    )

    /// Which glasses, and how to reach them.
    struct Target: ParsableArguments {
        @Flag(help: "Use the virtual glasses instead of Bluetooth.")
        var emulator = false

        @Option(help: "monocle or frame (default: the paired kind, else monocle).")
        var kind: GlassesKind?

        @OptionGroup var emulatorOptions: MonocleCommand.EmulatorOptions

        /// The virtual glasses' name: their files are kept in SIBYL_HOME/monocle/emulator, as for `monocle connect --emulator`.
        static let emulatorName = "emulator"

        /// Connects a session to the glasses; `close` ends it (and switches the virtual glasses off).
        func open(_ runtime: SibylRuntime) async throws -> OpenGlasses {
            if resolvedKind(runtime) == .frame { return try await openFrame(runtime) }
            if emulator {
                let glasses = try await powerOnEmulator(runtime)
                let session = MonocleREPLSession(
                    transport: EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength),
                    name: "the virtual Monocle"
                )
                do {
                    try await session.connect()
                } catch {
                    await glasses.powerOff()
                    throw error
                }
                return OpenGlasses(session: session, emulator: glasses) {
                    await session.close()
                    await glasses.powerOff()
                }
            }
            guard let address = runtime.settings[.glassesDevice] else {
                throw CLIError("No Monocle is paired yet.", hint: "Hold your Monocle near and run: sibyl monocle pair (or try --emulator)")
            }
            let bus = try BluetoothSupport.bus()
            let session = MonocleREPLSession(transport: BlueZTransport(bus: bus, address: address, adapter: BluetoothSupport.adapter(runtime)), name: "the Monocle \(address)")
            do {
                try await session.connect()
            } catch {
                bus.close()
                throw error
            }
            return OpenGlasses(session: session, emulator: nil) {
                await session.close()
                bus.close()
            }
        }

        /// The virtual glasses, with `--scripts` written to their filesystem first (as the author wrote them).
        func powerOnEmulator(_ runtime: SibylRuntime) async throws -> MonocleEmulator {
            let glasses = try emulatorOptions.emulator(runtime: runtime, name: Self.emulatorName)
            if emulatorOptions.scripts != nil {
                let app = try emulatorOptions.app()
                try FileManager.default.createDirectory(at: glasses.filesystem, withIntermediateDirectories: true)
                for file in app.files {
                    try Data(file.contents.utf8).write(to: glasses.filesystem.appendingPathComponent(file.name))
                }
            }
            try await glasses.powerOn()
            return glasses
        }
    }

    /// A connected session and how to end it.
    struct OpenGlasses {
        var session: any GlassesREPLSession
        var emulator: MonocleEmulator?
        var frameEmulator: FrameEmulator? = nil
        var close: @Sendable () async -> Void
    }
}

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
                if target.resolvedKind(runtime) == .frame {
                    await Self.runFrame(glasses, watched: watched)
                    return
                }
                let session = glasses.session
                Terminal.error(Terminal.dim("Connected to \(session.name). Ctrl-C interrupts the program, Ctrl-E pastes, Ctrl-] leaves.", stderr: true))
                let quiet = QuietClock()
                let printing = Task {
                    for await bytes in session.serialOutput {
                        quiet.touch()
                        Terminal.write(bytes)
                    }
                }
                let noticing = Task {
                    for await notice in session.notices { Terminal.error(Terminal.dim("[\(notice)]", stderr: true)) }
                }
                let watching = Task {
                    guard let watched else { return }
                    await watched.keepUploading(to: session)
                }
                if watched == nil {
                    // A booting app greets by itself; glasses that say nothing get asked for the
                    // friendly prompt (Ctrl-B: its banner).
                    await quiet.waitUntilQuiet(for: .milliseconds(500), atMost: .seconds(3))
                    if !quiet.touched { try await session.type(Data([0x02])) }
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
        }
    }
}

extension GlassesCommand {
    /// `sibyl glasses screen`.
    struct Screen: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what the virtual glasses' display shows, as text or as a 640×400 PNG.",
            discussion: """
            The virtual glasses start (with --scripts DIR, that app), the display is captured once the app has \
            drawn (on Frame: shown with frame.display.show()) and --after seconds have passed. Real glasses cannot \
            send their display back.
            """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var target: Target
        @Option(help: ArgumentHelp("Write the display to this PNG file (640×400, its colours and positions).", valueName: "FILE")) var png: String?
        @Option(help: "Seconds to wait after the first drawing, for the app to get where you want it.") var after = 1.0
        @Option(help: "Seconds to wait at most for the app to draw something.") var timeout = 60.0

        func run() async throws {
            try await global.withRuntime { runtime in
                guard target.emulator else {
                    throw CLIError("Only the virtual glasses' display can be captured: real glasses do not send theirs back.", hint: "Use --emulator (with --scripts DIR for your app).")
                }
                if target.resolvedKind(runtime) == .frame {
                    try await captureFrame(runtime)
                    return
                }
                let glasses = try await target.powerOnEmulator(runtime)
                guard FileManager.default.fileExists(atPath: glasses.filesystem.appendingPathComponent("main.py").path) else {
                    await glasses.powerOff()
                    throw CLIError("The virtual glasses have no app (no main.py).", hint: "Give one with --scripts DIR, or put it there with: sibyl glasses files put --emulator main.py")
                }
                // Until the app draws, or ends without drawing (the REPL's banner follows its end).
                let deadline = ContinuousClock.now + .seconds(timeout)
                var ended = false
                while await glasses.screen == nil, !ended, ContinuousClock.now < deadline {
                    try? await Task.sleep(for: .milliseconds(50))
                    ended = String(decoding: await glasses.serialLog, as: UTF8.self).contains("Type \"help()\" for more information.")
                }
                if await glasses.screen != nil { try? await Task.sleep(for: .seconds(after)) }
                let frame = await glasses.screen
                let printed = String(decoding: await glasses.serialLog, as: UTF8.self)
                await glasses.powerOff()
                guard let frame else {
                    let ending = printed.components(separatedBy: "MicroPython v").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                    throw CLIError(
                        ended ? "The app ended without drawing anything." + (ending.isEmpty ? "" : " It printed:\n" + ending.replacingOccurrences(of: "\r\n", with: "\n"))
                              : "The app drew nothing within \(Int(timeout)) s.",
                        hint: "Run it with: sibyl monocle emulate --scripts DIR (which shows what it prints, and its errors)."
                    )
                }
                try Self.show(frame, png: png)
            }
        }

        /// Prints the frame as text, and writes it as a PNG when asked.
        static func show(_ frame: DisplayFrame, png: String?) throws {
            Terminal.print(frame.rendered())
            guard let png else { return }
            try writePNG(png) { DisplayImage(frame, font: $0) }
        }

        /// Draws the screen with GNU Unifont (boxes where it is missing, with a warning) and
        /// writes it to `path` as a PNG.
        static func writePNG(_ path: String, draw: (GlyphFont?) -> DisplayImage) throws {
            let font = GlyphFont.unifont
            let image = draw(font)
            do { try image.png().write(to: URL(fileURLWithPath: path)) } catch {
                throw CLIError("Cannot write \(path): \(error.localizedDescription)")
            }
            Terminal.print("wrote \(path) (\(image.width)×\(image.height))")
            if font == nil {
                Terminal.error(Terminal.yellow("Text is drawn as boxes: no font at \(GlyphFont.unifontPath.path) (install the unifont package).", stderr: true))
            }
        }
    }
}

extension GlassesCommand {
    /// `sibyl glasses exec`.
    struct Exec: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run code on the glasses and print what it prints.",
            discussion: """
            The running program is interrupted first; an exception is reported with its traceback (exit status 1). \
            On Frame the code is Lua: a chunk longer than the link takes is written to a file on the glasses and \
            required; an error reads as Frame sends it ([string "…"]:1: message).
            """
        )
        @OptionGroup var global: GlobalOptions
        @OptionGroup var target: Target
        @Argument(help: "MicroPython code for Monocle, Lua for Frame (several statements separated by ; or newlines).") var code: String?
        @Option(help: "Run this file's code instead.") var file: String?

        func validate() throws {
            if (code == nil) == (file == nil) { throw ValidationError("Give either CODE or --file FILE.") }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                var program = code ?? ""
                if let file {
                    guard let data = FileManager.default.contents(atPath: file) else { throw CLIError("Cannot read \(file).") }
                    program = String(decoding: data, as: UTF8.self)
                }
                let glasses = try await target.open(runtime)
                let output: String
                do { output = try await glasses.session.execute(program) } catch {
                    await glasses.close()
                    throw error
                }
                await glasses.close()
                Terminal.write(output)
            }
        }
    }
}
