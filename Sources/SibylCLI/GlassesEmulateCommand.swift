import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameProtocol
import Glasses
import GlassesRelay
import MonocleEmulator
import SecureDFU
import SibylApp
import SibylCore

extension GlassesCommand {
    /// `sibyl glasses emulate`.
    struct Emulate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run a device app on virtual glasses, without Sibyl behind it.",
            discussion: """
            On Monocle (--kind monocle), the app (--app DIR, or --scripts DIR: .py files with a main.py; Sibyl's \
            own without either) is written to the virtual glasses and started; what it draws, prints and sends \
            appears here. Commands: tap · say FILE.wav · hold [FILE.jpg] · wait [SECONDS] · pause [SECONDS] · screen · \
            send res:TEXT (a data message to the app) · quit.

            On Frame (--kind frame), the app is a directory of Lua files with a main.lua. The files are written to the \
            virtual Frame's flash as they are (SIBYL_HOME/frame/emulate) and main.lua runs; what the app prints \
            (errors in red), the data it sends (hex, flag byte first) and the text of each frame it shows appear \
            here. Commands: tap · say FILE.wav · photo FILE.jpg · lua CODE (one chunk to the REPL) · \
            send CODE HEX (a frame-msg message, packet by packet, each waiting briefly for the app's 01 00) · \
            screen [--png FILE] · pause [SECONDS] · quit.

            With --listen PORT the virtual glasses are offered instead to another program, as a Web Bluetooth page \
            would offer real ones: one at a time connects a WebSocket to ws://127.0.0.1:PORT/monocle (Monocle: \
            binary frames 1 = serial, 2 = data) or ws://127.0.0.1:PORT/frame (Frame: channel 3), speaking the \
            relay's messages (text frames: JSON connected/disconnected, and connect/disconnect from the peer). The \
            connecting program is the phone: it installs its own app, as Sibyl does. The glasses' bootloader (where \
            they restart to have new firmware installed) waits beside them at .../monocle/bootloader or \
            .../frame/bootloader: connect, then binary frames 4 = DFU control point, 5 = DFU packet. PORT 0 picks a \
            free port; the console still takes the commands above.
            """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "monocle or frame (default: the paired kind, else monocle).")
        var kind: GlassesKind?

        @Option(help: ArgumentHelp("The app's directory (Frame: .lua files with a main.lua; Monocle: .py files with a main.py).", valueName: "DIR"))
        var app: String?

        @Option(help: "Offer the virtual glasses to another program on this loopback port (0 picks one) instead of running the app here.")
        var listen: Int?

        @Option(help: "Frame: the MTU the virtual Frame's host exchanges (23…247).")
        var mtu = 247

        @OptionGroup var emulatorOptions: EmulatorOptions

        func validate() throws {
            if !(23...247).contains(mtu) { throw ValidationError("--mtu needs a value between 23 and 247.") }
            if let listen, !(0...65_535).contains(listen) { throw ValidationError("--listen needs a port between 0 and 65535.") }
            if app != nil && emulatorOptions.scripts != nil { throw ValidationError("--app and --scripts name the same directory: give one.") }
        }

        /// The app's directory: `--app`, or `--scripts`.
        var appDirectory: String? { app ?? emulatorOptions.scripts }

        func run() async throws {
            try await global.withRuntime { runtime in
                switch kind ?? GlassesLinking.pairedKind(runtime) {
                case .monocle:
                    try await runMonocle(runtime)
                case .frame:
                    guard appDirectory != nil || listen != nil else { throw ValidationError("Give --app DIR (or --listen PORT).") }
                    try await runFrame(runtime)
                }
            }
        }

        /// The virtual Monocle running the app, its display drawn here, or offered with `--listen`.
        private func runMonocle(_ runtime: SibylRuntime) async throws {
            var options = emulatorOptions
            options.scripts = appDirectory
            let glasses = try options.emulator(runtime: runtime, name: "emulate")
            let phone = EmulatorTransport(emulator: glasses, maximumWriteLength: options.writeLength)
            if listen == nil {
                // Written straight to the filesystem, as the author wrote them: no version line on top
                // (no phone checks it here), so a traceback's line numbers are those of the author's files.
                try FileManager.default.createDirectory(at: glasses.filesystem, withIntermediateDirectories: true)
                for file in try options.app().files {
                    try Data(file.contents.utf8).write(to: glasses.filesystem.appendingPathComponent(file.name))
                }
            }
            try await glasses.powerOn()
            let console = GlassesConsole(emulator: glasses)
            let server = try await offer(phone, kind: .monocle, bootloader: EmulatorDFUTransport(emulator: glasses), what: "virtual glasses") { await glasses.powerOff() }
            if server == nil { try await phone.connect() }
            let watching = Task { await console.watchDisplay(showMessages: true, showSerial: true) }
            await console.readCommands(phone: server == nil ? phone : nil)
            watching.cancel()
            await server?.stop()
            await glasses.powerOff()
        }

        /// The virtual Frame running the app, or offered with `--listen` (with the app's files, or an empty flash).
        private func runFrame(_ runtime: SibylRuntime) async throws {
            let files = try appDirectory.map { try FrameAppDirectory.files(in: $0) } ?? []
            if let appDirectory, listen == nil, !files.contains(where: { $0.0 == "main.lua" }) {
                throw CLIError("\(appDirectory) has no main.lua.", hint: "Frame runs main.lua when it starts; put your app's entry point there.")
            }
            let flash = runtime.paths.home.appendingPathComponent("frame/emulate", isDirectory: true)
            try? FileManager.default.removeItem(at: flash)
            let glasses = try emulatorOptions.frameEmulator(runtime: runtime, name: "emulate")
            for (name, contents) in files { try glasses.writeFile(name, contents: contents) }
            let console = FrameEmulateConsole(glasses: glasses, limits: FrameLimits(mtu: mtu))
            guard listen != nil else {
                let run = try await FrameAppRun.start(glasses, mtu: mtu) { console.received($0) }
                console.transport.withLock { $0 = run.transport }
                let watching = Task { await console.watch(from: run.framesBefore) }
                await console.readCommands()
                watching.cancel()
                console.flush()
                await run.stop()
                return
            }
            try await glasses.powerOn()
            let link = EmulatorFrameTransport(emulator: glasses, mtu: mtu)
            let server = try await offer(link, kind: .frame, bootloader: EmulatorFrameDFUTransport(emulator: glasses), what: "virtual Frame") { await glasses.powerOff() }
            console.transport.withLock { $0 = link }
            let watching = Task { await console.watch(from: glasses.display.frames.count) }
            await console.readCommands()
            watching.cancel()
            await server?.stop()
            await glasses.powerOff()
        }

        /// With `--listen`, offers the glasses on their relay path (nil without it); `powerOff` runs when that fails.
        private func offer(
            _ glasses: any GlassesTransport, kind: GlassesKind, bootloader: any DFUTransport, what: String, powerOff: () async -> Void
        ) async throws -> RelayGlassesServer? {
            guard let listen else { return nil }
            do {
                let server = try await RelayGlassesServer.start(glasses: glasses, kind: kind, bootloader: bootloader, port: listen)
                Terminal.print("The \(what) wait\(what.hasSuffix("glasses") ? "" : "s") at \(server.url)")
                if let bootloader = server.bootloaderURL { Terminal.print("Their bootloader, once they restart into it, waits at \(bootloader)") }
                return server
            } catch {
                await powerOff()
                throw CLIError("Cannot offer the \(what) on port \(listen): \(error.localizedDescription)", hint: "Pick another port, or 0 for a free one.")
            }
        }
    }
}
