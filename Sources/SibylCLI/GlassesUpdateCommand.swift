import ArgumentParser
import Assistant
import Foundation
import FrameEmulator
import FrameGlasses
import FrameProtocol
import Monocle
import MonocleBluetooth

extension GlassesCommand {
    /// `sibyl glasses update`: installs a firmware package on the paired glasses (or the virtual Frame).
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Install a firmware package on the paired glasses or the virtual Frame.",
            discussion: """
            --firmware takes a Nordic DFU package (the zip Brilliant Labs publishes for Frame, made by `nrfutil pkg \
            generate --hw-version 52 --sd-req 0x0123`). It is checked first (its image against the init packet's size \
            and SHA-256). When Frame reports another version (frame.FIRMWARE_VERSION), Sibyl runs frame.update(): Frame \
            restarts into its bootloader, which advertises "Frame Update", and the package goes over Secure DFU (every \
            object checked by CRC-32, a lost link resumed where it stopped; the bootloader checks the signature). Frame \
            then restarts into the new firmware and Sibyl's app is checked and uploaded as on every connection. A Frame \
            left in its bootloader is updated first. For a paired Monocle this is `sibyl monocle update --firmware`. Examples:
              sibyl glasses update --firmware frame-firmware-v25.080.0838.zip
              sibyl glasses update --emulator --emulated-firmware v25.080.0838 --firmware frame-firmware-test.zip
            """
        )

        @OptionGroup var global: GlobalOptions

        @Option(help: "A firmware package (.zip) to install when the glasses report another version.")
        var firmware: String

        @Option(name: .customLong("firmware-version"), help: "The version the package's firmware reports (read from the image when not given).")
        var firmwareVersion: String?

        @Flag(help: "Update the virtual Frame (its flash is SIBYL_HOME/frame/emulator) instead of the paired glasses.")
        var emulator = false

        @Option(name: .customLong("emulated-firmware"), help: "The firmware version the virtual Frame starts on (such as v25.080.0838).")
        var emulatedFirmware: String?

        @Option(name: .customLong("emulated-bootloader-key"), help: "The public key (PEM) the virtual Frame's bootloader trusts; without it, it takes any signature.")
        var emulatedBootloaderKey: String?

        func validate() throws {
            for (flag, version) in [("--firmware-version", firmwareVersion), ("--emulated-firmware", emulatedFirmware)] {
                if let version, DFUPackage.embeddedVersion(in: Data(version.utf8)) != version {
                    throw ValidationError("\(flag) takes a version such as v25.080.0838.")
                }
            }
            if !emulator && (emulatedFirmware != nil || emulatedBootloaderKey != nil) {
                throw ValidationError("--emulated-firmware and --emulated-bootloader-key are for the virtual Frame (--emulator).")
            }
        }

        func run() async throws {
            try await global.withRuntime { runtime in
                if !emulator {
                    let paired = try GlassesConnection.paired(runtime)
                    if paired.kind == .monocle {
                        var arguments = ["--firmware", firmware]
                        if let firmwareVersion { arguments += ["--firmware-version", firmwareVersion] }
                        try await MonocleCommand.Update.parse(arguments).install(runtime)
                        return
                    }
                }
                try await updateFrame(runtime)
            }
        }

        /// Frame: the virtual one or the paired one over BlueZ.
        func updateFrame(_ runtime: SibylRuntime) async throws {
            let package = try MonocleCommand.Update.loadPackage(firmware, version: firmwareVersion)
            var options = FrameController.Options()
            options.firmwarePackage = package
            let transport: any FrameTransport
            var virtualFrame: FrameEmulator?
            var bus: DBusClient?
            if emulator {
                var configuration = FrameEmulatorConfiguration()
                if let emulatedFirmware { configuration.firmwareVersion = emulatedFirmware }
                if let emulatedBootloaderKey {
                    do {
                        try configuration.bootloader.trust(publicKeyPEM: String(contentsOfFile: emulatedBootloaderKey, encoding: .utf8))
                    } catch {
                        throw CLIError("Cannot read the public key \(emulatedBootloaderKey): \(error.localizedDescription)")
                    }
                }
                let frame = try FrameEmulator(configuration: configuration, flash: runtime.paths.home.appendingPathComponent("frame/emulator", isDirectory: true))
                try await frame.powerOn()
                Terminal.print("The virtual Frame runs firmware \(frame.firmwareVersion)")
                virtualFrame = frame
                transport = EmulatorFrameTransport(emulator: frame)
                options.bootloader = EmulatorFrameDFUTransport(emulator: frame)
            } else {
                let (_, address) = try GlassesConnection.paired(runtime)
                let client = try BluetoothSupport.bus()
                let adapter = BluetoothSupport.adapter(runtime)
                bus = client
                Terminal.print("Connecting to the Frame \(address)…")
                transport = FrameBlueZTransport(bus: client, address: address, adapter: adapter)
                options.bootloader = BlueZDFUTransport.frame(bus: client, adapter: adapter)
            }
            defer { bus?.close() }
            let controller = FrameController(transport: transport, app: .sibyl(), options: options)
            let serving = Task { await controller.run() }
            let outcome = await Self.follow(controller, package: package)
            await controller.stop()
            serving.cancel()
            await virtualFrame?.powerOff()
            let info = try outcome.get()
            Terminal.print("firmware \(info.firmware ?? "unknown") · app \(info.uploaded ? "uploaded" : "up to date")")
            if info.firmware != package.version {
                throw CLIError("Frame still reports firmware \(info.firmware ?? "of no version") instead of \(package.version ?? "?").")
            }
        }

        /// Shows the update's progress (as `sibyl monocle update` does) until the app runs, or the update fails.
        static func follow(_ controller: FrameController, package: DFUPackage) async -> Result<FrameDeviceInfo, CLIError> {
            let progress = ProgressDisplay()
            var updating = false
            for await event in controller.events {
                switch event {
                case .state(.updatingFirmware(let fraction)):
                    if !updating {
                        updating = true
                        progress.observer(.step("Installing firmware \(package.version ?? "") (\(package.firmware.count) bytes) through the bootloader (\(FrameIdentifiers.bootloaderName))"))
                    }
                    progress.observer(.progress(fraction, detail: ""))
                case .state(.running(let info)):
                    progress.finish()
                    return .success(info)
                case .state(.disconnected):
                    if updating {
                        progress.observer(.finished("Firmware installed; Frame restarts"))
                        updating = false
                    }
                case .state:
                    break
                case .notice(let text):
                    progress.finish()
                    Terminal.error(Terminal.yellow("[frame] \(text)", stderr: true))
                case .updateFailed(let reason):
                    progress.finish()
                    return .failure(CLIError("The firmware update failed: \(reason)",
                                             hint: "Frame stays in its bootloader (\(FrameIdentifiers.bootloaderName)) until it is updated or restarted; run the update again."))
                case .printed, .data:
                    break
                }
            }
            progress.finish()
            return .failure(CLIError("Frame did not come back after the update."))
        }
    }
}
