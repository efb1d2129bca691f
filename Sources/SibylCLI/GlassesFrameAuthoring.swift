import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import MonocleBluetooth
import MonocleEmulator
import SibylConfig
import SibylCore
import Synchronization

extension GlassesCommand.Target {
    /// The kind asked for, else the paired kind (`glasses.kind`), else Monocle.
    func resolvedKind(_ runtime: SibylRuntime) -> GlassesKind {
        kind ?? runtime.settings[.glassesKind]
    }

    /// The virtual Frame's flash, shared with `glasses connect --emulator --kind frame`.
    static func frameFlash(_ runtime: SibylRuntime) -> URL {
        runtime.paths.home.appendingPathComponent("frame/emulator", isDirectory: true)
    }

    /// A session with Frame glasses: the virtual Frame (with `--scripts` written to its flash), or
    /// the paired Frame over BlueZ.
    func openFrame(_ runtime: SibylRuntime) async throws -> GlassesCommand.OpenGlasses {
        if emulator {
            let glasses = try FrameEmulator(flash: Self.frameFlash(runtime))
            try writeFrameScripts(to: glasses)
            try await glasses.powerOn()
            // --write-length is the ATT payload (MTU − 3); Frame offers at most MTU 247.
            let transport = EmulatorFrameTransport(emulator: glasses, mtu: min(247, max(23, emulatorOptions.writeLength + 3)))
            let session = FrameREPLSession(transport: transport, name: "the virtual Frame")
            do {
                try await session.connect()
            } catch {
                await glasses.powerOff()
                throw error
            }
            return GlassesCommand.OpenGlasses(session: session, emulator: nil, frameEmulator: glasses) {
                await session.close()
                await glasses.powerOff()
                _ = transport
            }
        }
        guard let address = runtime.settings[.glassesDevice], runtime.settings[.glassesKind] == .frame else {
            throw CLIError("No Frame is paired yet.", hint: "Hold your Frame near and run: sibyl glasses pair (or try --emulator)")
        }
        let bus = try BluetoothSupport.bus()
        let session = FrameREPLSession(transport: FrameBlueZTransport(bus: bus, address: address, adapter: BluetoothSupport.adapter(runtime)), name: "the Frame \(address)")
        do {
            try await session.connect()
        } catch {
            bus.close()
            throw error
        }
        return GlassesCommand.OpenGlasses(session: session, emulator: nil) {
            await session.close()
            bus.close()
        }
    }

    /// Writes `--scripts DIR`'s files onto the virtual Frame's flash, as they are.
    func writeFrameScripts(to glasses: FrameEmulator) throws {
        guard let scripts = emulatorOptions.scripts else { return }
        for (name, contents) in try FrameAppDirectory.files(in: scripts) { try glasses.writeFile(name, contents: contents) }
    }
}

/// An author's Frame app: the plain files of a directory.
enum FrameAppDirectory {
    static func files(in path: String) throws -> [(String, Data)] {
        let directory = WatchedDirectory.exists(path) ? URL(fileURLWithPath: path, isDirectory: true) : nil
        guard let directory else { throw CLIError("\(path) is not a directory.", hint: "Give the directory that holds your app's main.lua.") }
        let names = try WatchedDirectory(path: path).snapshot().keys.sorted()
        return try names.map { ($0, try Data(contentsOf: directory.appendingPathComponent($0))) }
    }
}

extension WatchedDirectory {
    static func exists(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

extension GlassesCommand.REPL {
    /// Frame's REPL, line by line: Frame echoes nothing and has no prompt, so the prompt is drawn
    /// here, each line goes as one Lua chunk, and what it prints comes back as it is printed.
    static func runFrame(_ glasses: GlassesCommand.OpenGlasses, watched: WatchedDirectory?) async {
        let session = glasses.session
        Terminal.error(Terminal.dim("Connected to \(session.name): Lua, one line at a time. Ctrl-C breaks what runs (twice leaves), Ctrl-D leaves.", stderr: true))
        // Lines whose output is all shown (the session ends each line's output with an empty piece),
        // so the next prompt comes after it.
        let shownLines = SharedCount()
        let printing = Task {
            for await bytes in session.serialOutput {
                if bytes.isEmpty { shownLines.increment() } else { Terminal.write(bytes) }
            }
        }
        let noticing = Task {
            for await notice in session.notices { Terminal.error(Terminal.dim("[\(notice)]", stderr: true)) }
        }
        let watching = Task {
            guard let watched else { return }
            await watched.keepUploading(to: session)
        }
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
            var sent = 0
            for await line in lines {
                do {
                    try await session.type(Data((line + "\n").utf8))
                    sent += 1
                    let deadline = ContinuousClock.now + .seconds(2)
                    while shownLines.value < sent, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
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
}

/// A count several tasks share.
final class SharedCount: Sendable {
    private let count = Mutex(0)

    func increment() { count.withLock { $0 += 1 } }

    var value: Int { count.withLock { $0 } }
}

extension GlassesCommand.Screen {
    /// The virtual Frame's display once its app has shown a frame (its `main.lua` started with the
    /// console listening, so an error in it is reported).
    func captureFrame(_ runtime: SibylRuntime) async throws {
        let glasses = try FrameEmulator(flash: GlassesCommand.Target.frameFlash(runtime))
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

extension DisplayImage {
    /// A Frame display frame: its text (1-based top-left positions, Unifont ×2 with the drawing's
    /// spacing) and bitmaps (packed palette indices, 0 transparent) in the colours of its palette.
    init(_ frame: FrameDisplayFrame, font: GlyphFont? = GlyphFont.unifont) {
        self.init()
        let colors = frame.palette.map(\.rgbColor)
        func color(_ index: Int) -> UInt32 { colors.isEmpty ? 0xFFFFFF : colors[index % colors.count] }
        for drawing in frame.drawings {
            switch drawing {
            case .text(let text, let x, let y, _, let offset, let spacing):
                drawText(text, x: x - 1, y: y - 1, color: color(1 + offset), font: font, scale: 2, spacing: spacing)
            case .bitmap(let x, let y, let width, let totalColors, let offset, let pixels):
                let bits = totalColors <= 2 ? 1 : totalColors <= 4 ? 2 : 4
                drawPackedPixels(pixels, x: x - 1, y: y - 1, width: width, bitsPerPixel: bits) { $0 == 0 ? nil : color($0 + offset) }
            }
        }
    }
}

extension FramePaletteEntry {
    /// The entry as 0xRRGGBB: the RGB it was assigned, else its 4-bit Y and 3-bit Cb/Cr widened
    /// and converted (BT.601).
    var rgbColor: UInt32 {
        if let rgb, rgb.count == 3 {
            return UInt32(clamping: rgb[0]) << 16 | UInt32(clamping: rgb[1]) << 8 | UInt32(clamping: rgb[2])
        }
        let luma = Double(y * 17), blue = Double(cb * 32) - 128, red = Double(cr * 32) - 128
        func channel(_ value: Double) -> UInt32 { UInt32(max(0, min(255, value.rounded()))) }
        return channel(luma + 1.402 * red) << 16 | channel(luma - 0.344 * blue - 0.714 * red) << 8 | channel(luma + 1.772 * blue)
    }
}

/// A device app started on the virtual Frame with a host listening from its first line: `main.lua`
/// is held back while the Frame boots, then written and the Frame reset, so what it prints (an
/// error included) reaches the console.
final class FrameAppRun: Sendable {
    let glasses: FrameEmulator
    let transport: EmulatorFrameTransport
    /// Frames shown before the app started (the pairing screen of the boot without it).
    let framesBefore: Int
    private let state = Mutex<(printed: String, joiner: FramePrintJoiner, ended: Bool)>(("", FramePrintJoiner(), false))
    private let consumer: Mutex<Task<Void, Never>?> = Mutex(nil)

    private init(glasses: FrameEmulator, transport: EmulatorFrameTransport, framesBefore: Int) {
        self.glasses = glasses
        self.transport = transport
        self.framesBefore = framesBefore
    }

    /// Powers the Frame on and starts its `main.lua` with the host connected; `onNotification`
    /// sees every notification.
    static func start(_ glasses: FrameEmulator, mtu: Int = 247, onNotification: @escaping @Sendable (FrameNotification) -> Void = { _ in }) async throws -> FrameAppRun {
        let main = glasses.readFile("main.lua")
        let mainURL = glasses.flash.appendingPathComponent("main.lua")
        if main != nil { try FileManager.default.removeItem(at: mainURL) }
        do {
            try await glasses.powerOn()
            // The boot without main.lua ends at the pairing screen.
            let deadline = ContinuousClock.now + .seconds(10)
            while glasses.display.frames.isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        } catch {
            if let main { try? main.write(to: mainURL) }
            throw error
        }
        if let main { try glasses.writeFile("main.lua", contents: main) }
        let transport = EmulatorFrameTransport(emulator: glasses, mtu: mtu)
        let run = FrameAppRun(glasses: glasses, transport: transport, framesBefore: glasses.display.frames.count)
        let events = transport.events
        run.consumer.withLock {
            $0 = Task {
                for await event in events {
                    guard case .received(let bytes) = event else { continue }
                    let notification = FrameNotification(bytes)
                    run.note(notification)
                    onNotification(notification)
                }
            }
        }
        try await transport.connect()
        try await transport.write(try FrameWrite.resetSignal.bytes(limits: FrameLimits(mtu: mtu)))
        // Once the app returns, the firmware runs the REPL loop, which picks up this chunk.
        try await Task.sleep(for: .milliseconds(250))
        try await transport.write(try FrameWrite.lua(endedProbe).bytes(limits: FrameLimits(mtu: mtu)))
        return run
    }

    /// What the probe prints once the REPL loop runs it, i.e. once `main.lua` has returned (it fits MTU 23).
    static let endedMarker = "\u{2}end"
    static let endedProbe = "print(\"\\2end\")"

    private func note(_ notification: FrameNotification) {
        state.withLock { state in
            if case .printed(let text) = notification, text == Self.endedMarker {
                state.ended = true
                return
            }
            state.printed += state.joiner.add(notification)
        }
    }

    /// Whether `main.lua` has returned (or failed).
    var appEnded: Bool { state.withLock { $0.ended } }

    /// What the app printed, its lines joined.
    var printed: String { state.withLock { $0.printed.trimmingCharacters(in: .whitespacesAndNewlines) } }

    /// The frames the app showed (not the pairing screen the firmware shows when it returns).
    func appFrames() -> [FrameDisplayFrame] {
        let frames = glasses.display.frames
        return Array(frames.dropFirst(framesBefore)).filter { !Self.isPairingScreen($0) }
    }

    static func isPairingScreen(_ frame: FrameDisplayFrame) -> Bool {
        frame.texts.count == 2 && ["Frame is Paired", "Ready to Pair"].contains(frame.texts[0])
    }

    func stop() async {
        await glasses.powerOff()
        consumer.withLock { $0?.cancel() }
    }
}
