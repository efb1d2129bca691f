import Foundation
import Testing

/// `sibyl glasses update`, as a user runs it, on the virtual Frame (no engines needed).
@Suite(.timeLimit(.minutes(10)), .serialized)
struct GlassesUpdateCLITests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../SecureDFUTests/Fixtures/dfu").standardized

    @Test func updateInstallsFrameFirmwareThroughFrameUpdate() async throws {
        let cli = try CLIRunner(server: nil)
        let package = Self.fixtures.appendingPathComponent("frame-firmware-test.zip").path
        let key = Self.fixtures.appendingPathComponent("frame-test-key-public.pem").path
        let result = try await cli.run([
            "glasses", "update", "--emulator", "--kind", "frame", "--emulated-firmware", "v25.080.0838", "--firmware", package, "--emulated-bootloader-key", key,
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Firmware package: v25.120.1500, 14000 bytes, hardware 52, signed"), "\(result.stdout)")
        #expect(result.stdout.contains("The virtual Frame runs firmware v25.080.0838"), "\(result.stdout)")
        #expect(result.stderr.contains("Installing firmware v25.120.1500 (14000 bytes) through the bootloader (Frame Update)"), "\(result.stderr)")
        #expect(result.stderr.contains("100%"))
        #expect(result.stderr.contains("Firmware installed; Frame restarts"))
        #expect(result.stdout.contains("firmware v25.120.1500 · app uploaded"), "\(result.stdout)")

        // A bootloader that trusts another key refuses the package, and says so.
        let otherKey = cli.home.appendingPathComponent("other.pem")
        try Data("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEiTQMXuU61NbcTxBh8plKmPafBmvm\nW1seqnDDyOGdnVCHgYKGttnaqU2XtbLzgP+Xl7JZlbNNrD8glZiZbIqN1g==\n-----END PUBLIC KEY-----\n".utf8).write(to: otherKey)
        let refused = try await cli.run([
            "glasses", "update", "--emulator", "--kind", "frame", "--emulated-firmware", "v25.080.0838", "--firmware", package, "--emulated-bootloader-key", otherKey.path,
        ])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("The firmware update failed: The bootloader refused to execute the object: the image or its signature does not verify."), "\(refused.stderr)")
        #expect(refused.stderr.contains("Frame stays in its bootloader (Frame Update)"))

        // Without glasses paired, it says how to pair (or to try the virtual Frame).
        let unpaired = try await cli.run(["glasses", "update", "--firmware", package])
        #expect(unpaired.status != 0)
        #expect(unpaired.stderr.contains("No glasses are paired yet"), "\(unpaired.stderr)")
    }
}
