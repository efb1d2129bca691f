import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import MonocleEmulator
import SibylApp

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
                // What the app drew before it ended may still be on its way (the end is printed on
                // another channel than the drawing): let it arrive.
                if ended { await glasses.settle() }
                if await glasses.screen != nil { try? await Task.sleep(for: .seconds(after)) }
                let frame = await glasses.screen
                let printed = String(decoding: await glasses.serialLog, as: UTF8.self)
                await glasses.powerOff()
                guard let frame else {
                    let ending = printed.components(separatedBy: "MicroPython v").first?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                    throw CLIError(
                        ended ? "The app ended without drawing anything." + (ending.isEmpty ? "" : " It printed:\n" + ending.replacingOccurrences(of: "\r\n", with: "\n"))
                              : "The app drew nothing within \(Int(timeout)) s.",
                        hint: "Run it with: sibyl glasses emulate --kind monocle --scripts DIR (which shows what it prints, and its errors)."
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


extension GlassesCommand.Screen {
    /// The virtual Frame's display once its app has shown a frame (its `main.lua` started with the
    /// console listening, so an error in it is reported).
    func captureFrame(_ runtime: SibylRuntime) async throws {
        let glasses = try target.emulatorOptions.frameEmulator(runtime: runtime, name: GlassesCommand.Target.emulatorName)
        try target.writeFrameScripts(to: glasses)
        guard glasses.readFile("main.lua") != nil else {
            throw CLIError("The virtual Frame has no app (no main.lua).", hint: "Give one with --scripts DIR, or put it there with: sibyl glasses files put --emulator --kind frame main.lua")
        }
        let run = try await FrameAppRun.start(glasses)
        let deadline = ContinuousClock.now + .seconds(timeout)
        while run.appFrames().isEmpty, !run.appEnded, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(50))
        }
        if !run.appFrames().isEmpty, !run.appEnded { try? await Task.sleep(for: .seconds(after)) }
        let frame = run.appFrames().last
        let printed = run.printed
        await run.stop()
        guard let frame else {
            throw CLIError(
                run.appEnded ? "The app ended without showing anything." + (printed.isEmpty ? "" : " It printed:\n" + printed)
                             : "The app showed nothing within \(Int(timeout)) s (frame.display.show() puts a frame on screen).",
                hint: "Run it with: sibyl glasses emulate --kind frame --app DIR (which shows what it prints, and its errors)."
            )
        }
        try Self.show(frame, png: png)
    }

    /// Prints a Frame display frame as text, and writes it as a PNG when asked.
    static func show(_ frame: FrameDisplayFrame, png: String?) throws {
        Terminal.print(FrameConsole.render(frame.texts))
        guard let png else { return }
        try GlassesCommand.Screen.writePNG(png) { DisplayImage(frame, font: $0) }
    }
}
