import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import MonocleBluetooth
import MonocleRelay
import SibylConfig
import SibylCore
import Synchronization

extension GlassesCommand {
    /// `sibyl glasses emulate`.
    struct Emulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a device app on virtual glasses, without Sibyl behind it.",
            discussion: """
            With --kind frame, the app is a directory of Lua files with a main.lua. The files are written to the \
            virtual Frame's flash as they are (SIBYL_HOME/frame/emulate) and main.lua runs; what the app prints \
            (errors in red), the data it sends (hex, flag byte first) and the text of each frame it shows appear \
            here. Commands: tap · say FILE.wav · photo FILE.jpg · lua CODE (one chunk to the REPL) · \
            send CODE HEX (a frame-msg message, packet by packet, each waiting briefly for the app's 01 00) · \
            screen [--png FILE] · pause [SECONDS] · quit.

            With --listen PORT the virtual Frame (with --app's files, or an empty flash) is offered instead to \
            another program, as a Web Bluetooth page would offer real glasses: one at a time connects a \
            WebSocket to ws://127.0.0.1:PORT/frame and carries Frame's bytes on channel 3 (see the relay in the \
            README); the console still takes the commands above.

            With --kind monocle (the default), this is `sibyl monocle emulate --scripts DIR` (and --listen).
            """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "monocle or frame (default: the paired kind, else monocle).")
        var kind: GlassesKind?

        @Option(help: ArgumentHelp("The app's directory (Frame: .lua files with a main.lua; Monocle: .py files with a main.py).", valueName: "DIR"))
        var app: String?

        @Option(help: "Offer the virtual glasses to another program on this loopback port (0 picks one) instead of running the app here.")
        var listen: Int?

        @Option(help: "The MTU the virtual Frame's host exchanges (23…247).")
        var mtu = 247

        func validate() throws {
            if !(23...247).contains(mtu) { throw ValidationError("--mtu needs a value between 23 and 247.") }
            if app == nil && listen == nil { throw ValidationError("Give --app DIR (or --listen PORT).") }
            if let listen, !(0...65_535).contains(listen) { throw ValidationError("--listen needs a port between 0 and 65535.") }
        }

        func run() async throws {
            var monocle: MonocleCommand.Emulate?
            try await global.withRuntime { runtime in
                let kind = kind ?? runtime.settings[.glassesKind]
                guard kind == .frame else {
                    monocle = try MonocleCommand.Emulate.parse((app.map { ["--scripts", $0] } ?? []) + (listen.map { ["--listen", String($0)] } ?? []))
                    return
                }
                if let listen {
                    try await offerFrame(runtime: runtime, port: listen)
                    return
                }
                guard let app else { return }
                let files = try FrameAppDirectory.files(in: app)
                guard files.contains(where: { $0.0 == "main.lua" }) else {
                    throw CLIError("\(app) has no main.lua.", hint: "Frame runs main.lua when it starts; put your app's entry point there.")
                }
                let flash = runtime.paths.home.appendingPathComponent("frame/emulate", isDirectory: true)
                try? FileManager.default.removeItem(at: flash)
                let glasses = try FrameEmulator(flash: flash)
                for (name, contents) in files { try glasses.writeFile(name, contents: contents) }
                let console = FrameEmulateConsole(glasses: glasses, limits: FrameLimits(mtu: mtu))
                let run = try await FrameAppRun.start(glasses, mtu: mtu) { console.received($0) }
                console.transport.withLock { $0 = run.transport }
                let watching = Task { await console.watch(from: run.framesBefore) }
                await console.readCommands()
                watching.cancel()
                console.flush()
                await run.stop()
            }
            // The Monocle path parses its own options and opens its own runtime.
            if var monocle {
                monocle.global = global
                try await monocle.run()
            }
        }

        /// `--listen` with Frame: the virtual Frame waits for a program to connect and carry its bytes.
        private func offerFrame(runtime: SibylRuntime, port: Int) async throws {
            let flash = runtime.paths.home.appendingPathComponent("frame/emulate", isDirectory: true)
            try? FileManager.default.removeItem(at: flash)
            let glasses = try FrameEmulator(flash: flash)
            if let app {
                for (name, contents) in try FrameAppDirectory.files(in: app) { try glasses.writeFile(name, contents: contents) }
            }
            try await glasses.powerOn()
            let link = EmulatorFrameTransport(emulator: glasses, mtu: mtu)
            let server: RelayGlassesServer
            do {
                server = try await RelayGlassesServer.start(frame: link, port: port)
            } catch {
                await glasses.powerOff()
                throw CLIError("Cannot offer the virtual Frame on port \(port): \(error.localizedDescription)", hint: "Pick another port, or 0 for a free one.")
            }
            Terminal.print("The virtual Frame waits at \(server.url)")
            let console = FrameEmulateConsole(glasses: glasses, limits: FrameLimits(mtu: mtu))
            console.transport.withLock { $0 = link }
            let watching = Task { await console.watch(from: glasses.display.frames.count) }
            await console.readCommands()
            watching.cancel()
            await server.stop()
            await glasses.powerOff()
        }
    }
}

/// The console of `glasses emulate --kind frame`: the app's prints and data, its display, and the
/// author's commands.
final class FrameEmulateConsole: Sendable {
    let glasses: FrameEmulator
    let limits: FrameLimits
    let transport = Mutex<EmulatorFrameTransport?>(nil)
    /// Printed text not yet shown (a line stays open for a moment: `print(a, b)` comes in pieces).
    private let pending = Mutex<(text: String, joiner: FramePrintJoiner, at: ContinuousClock.Instant)>(("", FramePrintJoiner(), .now))
    private let acknowledgements = Mutex(0)

    init(glasses: FrameEmulator, limits: FrameLimits) {
        self.glasses = glasses
        self.limits = limits
    }

    func received(_ notification: FrameNotification) {
        if notification.isAcknowledgement || notification.isNegativeAcknowledgement { acknowledgements.withLock { $0 += 1 } }
        switch notification {
        case .printed(let text):
            if text == FrameAppRun.endedMarker {
                flush()
                Terminal.print(Terminal.dim("[main.lua returned; Frame's REPL is idle (lua CODE runs a chunk)]"))
                return
            }
            let complete: String = pending.withLock { state in
                state.text += state.joiner.add(notification)
                state.at = .now
                guard let newline = state.text.lastIndex(of: "\n") else { return "" }
                let lines = String(state.text[...newline])
                state.text = String(state.text[state.text.index(after: newline)...])
                return lines
            }
            show(complete)
        case .data(let bytes):
            flush()
            Terminal.print(Terminal.dim("data   │ ") + bytes.map { String(format: "%02x", $0) }.joined(separator: " "))
        }
    }

    /// Shows the open line (after a quiet moment, or before other output).
    func flush() {
        let rest: String = pending.withLock { state in
            defer { state.text = "" }
            return state.text + state.joiner.finish()
        }
        show(rest)
    }

    private func show(_ text: String) {
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let isError = LuaError(parsing: String(line)) != nil
            Terminal.print(Terminal.dim("serial │ ") + (isError ? Terminal.red(String(line)) : String(line)))
        }
    }

    /// Shows each new frame the app shows, and open print lines once they have been quiet a moment.
    func watch(from framesBefore: Int) async {
        var shown = framesBefore
        while !Task.isCancelled {
            let quiet = pending.withLock { !$0.text.isEmpty && ContinuousClock.now - $0.at > .milliseconds(150) }
            if quiet { flush() }
            let frames = glasses.display.frames
            if frames.count != shown, let current = frames.last {
                shown = frames.count
                if !FrameAppRun.isPairingScreen(current) {
                    flush()
                    Terminal.print(FrameConsole.render(current.texts))
                }
            }
            try? await Task.sleep(for: .milliseconds(50))
        }
    }

    static let help = "tap · say FILE.wav · photo FILE.jpg · lua CODE · send CODE HEX · screen [--png FILE] · pause [SECONDS] · quit"

    /// Reads commands until `quit` or the end of input.
    func readCommands() async {
        await Terminal.readCommands(help: Self.help) { command, argument in
            switch command {
            case "tap":
                try await glasses.tap()
            case "say":
                let seconds = try glasses.hear(wavFile: argument)
                Terminal.print(Terminal.dim("the microphone will hear \(String(format: "%.1f", seconds)) s of \(argument ?? "") from the next frame.microphone.start"))
            case "photo":
                try glasses.see(jpegFile: argument)
                Terminal.print(Terminal.dim("the camera will see \(argument ?? "")"))
            case "lua":
                guard let argument else { throw CLIError("lua needs code: lua print(frame.battery_level())") }
                try await write(try FrameWrite.lua(argument).bytes(limits: limits))
            case "send":
                try await send(argument ?? "")
            case "screen":
                try screen(argument)
            case "pause":
                try await Task.sleep(for: .seconds(Double(argument ?? "1") ?? 1))
            default:
                return false
            }
            return true
        }
    }

    private func write(_ bytes: Data) async throws {
        guard let transport = transport.withLock({ $0 }) else { throw CLIError("The virtual Frame is not connected.") }
        try await transport.write(bytes)
    }

    /// `send CODE HEX`: a frame-msg message, one packet at a time; each waits up to a second for
    /// the app's acknowledgement (an app without data.lua's acknowledgements just takes longer).
    private func send(_ argument: String) async throws {
        let parts = argument.split(separator: " ", maxSplits: 1).map(String.init)
        guard let codeText = parts.first, let code = UInt8(codeText.hasPrefix("0x") ? String(codeText.dropFirst(2)) : codeText, radix: 16) else {
            throw CLIError("send needs a message code (hex, 00–ff) and the payload in hex: send 20 48656c6c6f")
        }
        let hex = parts.count > 1 ? parts[1].replacingOccurrences(of: " ", with: "") : ""
        guard let payload = Data(hexString: hex) else { throw CLIError("The payload is not hex: \(hex)") }
        let packets = try FrameMessage(code: code, payload: payload).writes(limits: limits)
        var acknowledged = 0
        for packet in packets {
            let before = acknowledgements.withLock { $0 }
            try await write(packet)
            let deadline = ContinuousClock.now + .seconds(1)
            while acknowledgements.withLock({ $0 }) == before, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            if acknowledgements.withLock({ $0 }) > before { acknowledged += 1 }
        }
        Terminal.print(Terminal.dim("sent message 0x\(String(format: "%02x", code)) (\(payload.count) bytes) in \(packets.count) packet\(packets.count == 1 ? "" : "s"), \(acknowledged) acknowledged"))
    }

    private func screen(_ argument: String?) throws {
        var png: String?
        if let argument {
            let words = argument.split(separator: " ").map(String.init)
            guard words.count == 2, words[0] == "--png" else { throw CLIError("screen takes --png FILE, or nothing.") }
            png = words[1]
        }
        guard let frame = glasses.display.frames.last(where: { !FrameAppRun.isPairingScreen($0) }) else {
            Terminal.print(Terminal.dim("the app has shown nothing yet (frame.display.show() puts a frame on screen)"))
            return
        }
        try GlassesCommand.Screen.show(frame, png: png)
    }
}
