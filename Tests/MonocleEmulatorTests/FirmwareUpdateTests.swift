import Foundation
import Glasses
import Monocle
import MonocleEmulator
import SecureDFU
import Synchronization
import Testing

/// A firmware update end to end: the controller asks Sibyl's app firmware to restart into its
/// bootloader, installs the package over Secure DFU, and brings the app up on the new firmware.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct FirmwareUpdateTests {
    static func options(for glasses: MonocleEmulator, package: DFUPackage) -> GlassesConnection.Options {
        var options = GlassesConnection.Options.fast
        options.firmwarePackage = package
        options.bootloader = EmulatorDFUTransport(emulator: glasses)
        options.dfu.findTimeout = .seconds(5)
        return options
    }

    /// Runs a connection with the package against the glasses while `body` looks on.
    static func updating(_ glasses: MonocleEmulator, with package: DFUPackage, _ body: (ConnectionObserver) async throws -> Void) async throws {
        let connection = try MonocleConnectionTests.connection(EmulatorTransport(emulator: glasses), options: options(for: glasses, package: package))
        try await connection.serve(body)
    }

    static func configure(_ configuration: inout EmulatorConfiguration) {
        configuration.firmware = "v23.200.0900"
        configuration.bootloader.trustedKey = try? DFUFixture.publicKey()
    }

    @Test func staleFirmwareIsReplacedAndTheAppRunsOnTheNewOne() async throws {
        let package = try DFUFixture.package()
        try await TestGlasses.with(configure: Self.configure) { glasses in
            // The bootloader's link drops in the middle of the third object; the update resumes.
            await glasses.disconnectBootloader(atFirmwareByte: 9_000)
            try await Self.updating(glasses, with: package) { observer in
                let info = try await observer.running()
                #expect(info.firmware == "v23.300.1200")
                #expect(info.uploaded)
                #expect(await glasses.installedFirmware == package.firmware)
                #expect(await glasses.firmwareVersion == "v23.300.1200")
                let progress = observer.states.compactMap { if case .updatingFirmware(let p) = $0 { p } else { nil } }
                #expect(progress.first == 0)
                #expect(progress.last == 1)
                #expect(progress.count > 4)
                let notices = observer.notices
                #expect(notices.contains { $0.hasPrefix("resuming the firmware update at byte") })
                #expect(notices.contains { $0.contains("installed (18000 bytes)") })
                _ = try await glasses.waitForScreen { $0.lines.contains { $0.lowercased().contains("tap") } }

                // A reconnect finds the new firmware: nothing is installed again.
                await glasses.disconnect()
                let second = try await observer.running(2)
                #expect(second.firmware == "v23.300.1200")
                #expect(!second.uploaded)
                let updates = observer.states.filter { $0 == .updatingFirmware(progress: 0) }.count
                #expect(updates == 1)
            }
        }
    }

    @Test func glassesLeftInTheirBootloaderAreUpdatedFirst() async throws {
        let package = try DFUFixture.package()
        try await TestGlasses.with(configure: Self.configure) { glasses in
            await glasses.enterBootloader()
            try await Self.updating(glasses, with: package) { observer in
                let info = try await observer.running()
                #expect(info.firmware == "v23.300.1200")
                #expect(observer.notices.contains("the glasses are in their bootloader (DfuTarg)"))
            }
        }
    }

    @Test func aPackageTheBootloaderRefusesLeavesTheGlassesOnTheirOldFirmware() async throws {
        let package = try DFUFixture.package()
        try await TestGlasses.with(configure: {
            $0.firmware = "v23.200.0900"
            $0.bootloader.hardwareVersion = 53 // other glasses: the package's hw-version 52 is refused
        }) { glasses in
            try await Self.updating(glasses, with: package) { observer in
                // The bootloader keeps the old application; the wearer restarts the glasses, which boot it.
                _ = try await observer.until("the refusal") { observer.failures.first { $0.contains("the firmware is for other hardware") } }
                await glasses.leaveBootloader()
                let info = try await observer.running()
                #expect(info.firmware == "v23.200.0900")
                #expect(await glasses.installedFirmware == nil)
                #expect(observer.notices.contains { $0.contains("was tried already, so it is not installed again") })
            }
        }
    }
}
