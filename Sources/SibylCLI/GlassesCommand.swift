public import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import Glasses
import GlassesBluetooth
import Monocle
import MonocleEmulator
import SecureDFU
import SibylApp
import SibylCore

/// `sibyl glasses`: Monocle or Frame glasses: link them to Sibyl, update them, and work on their REPL and files.
struct GlassesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glasses",
        abstract: "Ask through Monocle or Frame glasses; update them, work on their REPL and files, and see their screen.",
        discussion: """
        --kind monocle|frame picks the glasses where the kind matters (default: the paired kind, else monocle); \
        pairing remembers which kind answered. connect, update, repl, exec, files and screen reach the paired glasses \
        over Bluetooth (BlueZ), or with --emulator the virtual ones, whose files are kept between runs; connect --relay \
        waits for a Web Bluetooth page to carry real glasses' bytes. Examples:
          sibyl glasses pair && sibyl glasses connect
          sibyl glasses connect --emulator --kind frame
          sibyl glasses connect --relay --port 8765
          sibyl glasses captions --translate-to en
          sibyl glasses update --firmware monocle-micropython-v23.248.0754.zip
          sibyl glasses repl --emulator --watch my-app/
          sibyl glasses exec "import device; print(device.VERSION)"
          sibyl glasses files put main.py
          sibyl glasses screen --emulator --scripts my-app/ --png screen.png
          sibyl glasses emulate --kind frame --app my-lua-app/
        """,
        subcommands: [Scan.self, Pair.self, Unpair.self, Connect.self, Captions.self, Update.self, Emulate.self, REPL.self, Exec.self, Files.self, Screen.self]
    )

    /// How the virtual glasses behave.
    struct EmulatorOptions: ParsableArguments {
        @Option(help: ArgumentHelp("Run this directory's device scripts (Monocle: with a main.py; Frame: with a main.lua) instead of Sibyl's own app.", valueName: "DIR"))
        var scripts: String?

        @Option(name: .customLong("write-length"), help: "The link's largest write in bytes (ATT MTU − 3).")
        var writeLength = 253

        @Option(name: .customLong("emulated-firmware"), help: "Firmware version the virtual glasses report (an older one exercises `update --firmware`).")
        var emulatedFirmware: String?

        @Option(name: .customLong("emulated-bootloader-key"), help: "The public key (PEM) the virtual glasses' bootloader trusts; without it, it takes any signature.")
        var emulatedBootloaderKey: String?

        @Flag(name: .customLong("real-time-microphone"), help: "Monocle: deliver microphone samples at their real rate.")
        var realTimeMicrophone = false

        @Option(name: .customLong("data-queue"), help: ArgumentHelp(
            "Monocle: make the virtual link busy like a real one: it holds N notifications (the firmware's queue holds 2), and bluetooth.send raises OSError 'raw data service is busy' while they wait.",
            valueName: "N"
        ))
        var dataQueue: Int?

        @Option(name: .customLong("connection-interval"), help: ArgumentHelp("With --data-queue: milliseconds between the link's connection events, which empty the queue.", valueName: "MS"))
        var connectionInterval = 15

        @Option(name: .customLong("emulated-fpga"), help: "Monocle: FPGA version the virtual glasses report (an older one exercises `update --fpga`).")
        var emulatedFPGA = "v23.230.0808"

        @Option(name: .customLong("emulated-fpga-after-update"), help: "Monocle: FPGA version the virtual glasses report once an FPGA image was written to them (`update` sets it to --fpga-version).")
        var emulatedFPGAAfterUpdate: String?

        func validate() throws {
            if let dataQueue, dataQueue < 1 {
                throw ValidationError("--data-queue needs at least 1 notification (the real glasses hold 2).")
            }
            guard connectionInterval >= 1 else {
                throw ValidationError("--connection-interval needs at least 1 millisecond (the real glasses use 15).")
            }
            if let emulatedFirmware, DFUPackage.embeddedVersion(in: Data(emulatedFirmware.utf8)) != emulatedFirmware {
                throw ValidationError("--emulated-firmware takes a version such as v23.248.0754 (Monocle) or v25.080.0838 (Frame).")
            }
        }

        /// The Monocle app to run: `--scripts`, else Sibyl's own.
        func app() throws -> DeviceApp {
            guard let scripts else { return try DeviceApp.sibyl() }
            return try DeviceApp(directory: URL(fileURLWithPath: scripts))
        }

        /// The virtual Monocle, its files kept in SIBYL_HOME/monocle/NAME.
        func emulator(runtime: SibylRuntime, name: String, continuousMicrophone: Bool = false) throws -> MonocleEmulator {
            let module = runtime.glasses.emulatorInterpreter
            guard FileManager.default.fileExists(atPath: module.path) else {
                throw CLIError("The Monocle emulator's MicroPython interpreter is not installed.", hint: "Run: sibyl models install emulator")
            }
            var configuration = EmulatorConfiguration(interpreter: MicroPythonInterpreter(module: module))
            configuration.maximumWriteLength = writeLength
            configuration.firmware = emulatedFirmware ?? configuration.firmware
            try trustKey { try configuration.bootloader.trust(publicKeyPEM: $0) }
            configuration.realTimeMicrophone = realTimeMicrophone
            configuration.continuousMicrophone = continuousMicrophone
            configuration.dataQueue = dataQueue.map { DataQueue(capacity: $0, interval: .milliseconds(connectionInterval)) }
            configuration.fpga = emulatedFPGA
            configuration.fpgaAfterUpdate = emulatedFPGAAfterUpdate
            let filesystem = runtime.paths.home.appendingPathComponent("monocle/\(name)", isDirectory: true)
            return MonocleEmulator(configuration: configuration, filesystem: filesystem)
        }

        /// The virtual Frame, its flash kept in SIBYL_HOME/frame/NAME.
        func frameEmulator(runtime: SibylRuntime, name: String) throws -> FrameEmulator {
            var configuration = FrameEmulatorConfiguration()
            if let emulatedFirmware { configuration.firmwareVersion = emulatedFirmware }
            try trustKey { try configuration.bootloader.trust(publicKeyPEM: $0) }
            return try FrameEmulator(configuration: configuration, flash: runtime.paths.home.appendingPathComponent("frame/\(name)", isDirectory: true))
        }

        /// Gives `--emulated-bootloader-key`'s PEM to `trust`.
        private func trustKey(_ trust: (String) throws -> Void) throws {
            guard let emulatedBootloaderKey else { return }
            do {
                try trust(String(contentsOfFile: emulatedBootloaderKey, encoding: .utf8))
            } catch {
                throw CLIError("Cannot read the public key \(emulatedBootloaderKey) (a PEM file): \(error.localizedDescription)")
            }
        }
    }

    /// Which glasses, and how to reach them.
    struct Target: ParsableArguments {
        @Flag(help: "Use the virtual glasses instead of Bluetooth.")
        var emulator = false

        @Option(help: "monocle or frame (default: the paired kind, else monocle).")
        var kind: GlassesKind?

        @OptionGroup var emulatorOptions: EmulatorOptions

        /// The virtual glasses' name: their files are kept in SIBYL_HOME/monocle/emulator (Frame:
        /// SIBYL_HOME/frame/emulator), shared with `glasses connect --emulator`.
        static let emulatorName = "emulator"

        /// The kind asked for, else the paired kind.
        func resolvedKind(_ runtime: SibylRuntime) -> GlassesKind {
            kind ?? GlassesLinking.pairedKind(runtime)
        }

        /// Connects a REPL session to the glasses; `close` ends it (and switches the virtual glasses off).
        func open(_ runtime: SibylRuntime) async throws -> OpenGlasses {
            let kind = resolvedKind(runtime)
            guard emulator else {
                let address = try GlassesLinking.paired(runtime, kind: kind)
                let bus = try BluetoothSupport.bus()
                let transport = BlueZTransport(bus: bus, address: address, services: BluetoothSupport.services(kind), adapter: BluetoothSupport.adapter(runtime))
                let session = GlassesREPLSession(dialect: kind.dialect, transport: transport, name: "the \(kind.displayName) \(address)")
                return try await OpenGlasses.connect(session) { bus.close() }
            }
            switch kind {
            case .monocle:
                let glasses = try await powerOnEmulator(runtime)
                let transport = EmulatorTransport(emulator: glasses, maximumWriteLength: emulatorOptions.writeLength)
                var open = try await OpenGlasses.connect(GlassesREPLSession(dialect: .microPython, transport: transport, name: "the virtual Monocle")) {
                    await glasses.powerOff()
                }
                open.emulator = glasses
                return open
            case .frame:
                let glasses = try emulatorOptions.frameEmulator(runtime: runtime, name: Self.emulatorName)
                try writeFrameScripts(to: glasses)
                try await glasses.powerOn()
                // --write-length is the ATT payload (MTU − 3); Frame offers at most MTU 247.
                let transport = EmulatorFrameTransport(emulator: glasses, mtu: min(247, max(23, emulatorOptions.writeLength + 3)))
                var open = try await OpenGlasses.connect(GlassesREPLSession(dialect: .lua, transport: transport, name: "the virtual Frame")) {
                    await glasses.powerOff()
                }
                open.frameEmulator = glasses
                return open
            }
        }

        /// The virtual Monocle, with `--scripts` written to its filesystem first (as the author wrote them).
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

        /// Writes `--scripts DIR`'s files onto the virtual Frame's flash, as they are.
        func writeFrameScripts(to glasses: FrameEmulator) throws {
            guard let scripts = emulatorOptions.scripts else { return }
            for (name, contents) in try FrameAppDirectory.files(in: scripts) { try glasses.writeFile(name, contents: contents) }
        }
    }

    /// A connected REPL session and how to end it.
    struct OpenGlasses {
        var session: GlassesREPLSession
        var emulator: MonocleEmulator?
        var frameEmulator: FrameEmulator?
        var close: @Sendable () async -> Void

        /// Connects `session`; `release` lets go of what reaches the glasses, when the session closes or fails to connect.
        static func connect(_ session: GlassesREPLSession, release: @escaping @Sendable () async -> Void) async throws -> OpenGlasses {
            do {
                try await session.connect()
            } catch {
                await release()
                throw error
            }
            return OpenGlasses(session: session) {
                await session.close()
                await release()
            }
        }
    }
}

extension GlassesKind: ExpressibleByArgument {
    /// The REPL the glasses speak.
    var dialect: GlassesREPLSession.Dialect { self == .frame ? .lua : .microPython }
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
