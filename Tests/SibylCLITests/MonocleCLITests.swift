import Foundation
import LocalEngines
import Testing
import SibylCore

/// `sibyl glasses … --kind monocle`, as a user runs it, on the virtual glasses (and the old `sibyl monocle`, which says where it moved).
@Suite(
    .timeLimit(.minutes(20)), .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().filter { ["chat", "stt", "tts", "emulator"].contains($0.name) }.allSatisfy(\.installed)
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the local chat, speech and emulator engines are not installed (sibyl models install all)"
    )
)
struct MonocleCLITests {
    func runner() throws -> CLIRunner {
        var runner = try CLIRunner(server: nil)
        runner.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        return runner
    }

    func speech(_ text: String, in directory: URL) async throws -> URL {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("question.wav")
        let espeak = Process()
        espeak.executableURL = URL(fileURLWithPath: "/usr/bin/espeak-ng")
        espeak.arguments = ["-s", "140", "-w", file.path, text]
        try espeak.run()
        await espeak.exited()
        return file
    }

    @Test func aQuestionSpokenIntoTheVirtualGlassesIsAnsweredAndSaved() async throws {
        let cli = try runner()
        let wav = try await speech("What is the capital of France?", in: cli.home)
        // Greedy decoding: the small local model's answer is checked, so it must not be sampled
        // (at the server's default temperature it once said London).
        #expect(try await cli.run(["config", "set", "chat.temperature", "0"]).status == 0)
        let result = try await cli.run(["glasses", "connect", "--kind", "monocle", "--emulator"], input: "say \(wav.path)\nwait 900\nquit\n")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("[monocle: running"), "\(result.stdout)")
        #expect(result.stdout.contains("heard: "), "\(result.stdout)")
        #expect(result.stdout.contains("Paris"), "\(result.stdout)")
        // The question was heard as it was spoken: the stage times count from the end of speech.
        #expect(result.stdout.contains("after you stopped: text"), "\(result.stdout)")
        let list = try #require(try await cli.run(["conversations", "list", "--source", "glasses", "--json"]).conversations)
        #expect(list.count == 1)
        #expect(list.first?["messageCount"] as? Int == 2)

        // A second session finds the app already on the glasses.
        let again = try await cli.run(["glasses", "connect", "--kind", "monocle", "--emulator"], input: "quit\n")
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(!again.stdout.contains("uploading main.py"))
        #expect(result.stdout.contains("uploading main.py"))
    }

    @Test func emulateRunsAnyDeviceApp() async throws {
        let cli = try runner()
        let app = cli.home.appendingPathComponent("my-app", isDirectory: true)
        try FileManager.default.createDirectory(at: app, withIntermediateDirectories: true)
        try Data("""
        import bluetooth, display, touch
        def tapped(pad):
            bluetooth.send(b"hey:" + pad.encode())
        touch.callback(touch.EITHER, tapped)
        while True:
            display.show(display.Text("Hello from my app", 0, 0, display.GREEN))

        """.utf8).write(to: app.appendingPathComponent("main.py"))
        // Through the old command: it says where it moved, and runs there with the same options.
        let result = try await cli.run(["monocle", "emulate", "--scripts", app.path], input: "pause 1\ntap\npause 1\nscreen\nquit\n")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("`sibyl monocle emulate` is now `sibyl glasses emulate --kind monocle`"), "\(result.stderr)")
        #expect(result.stdout.contains("Hello from my app"))
        #expect(result.stdout.contains("glasses → \"hey:A\""), "\(result.stdout)")
    }

    @Test func connectShowsTheSerialOutputOnlyWhenVerbose() async throws {
        let cli = try runner()
        let verbose = try await cli.run(["glasses", "connect", "--kind", "monocle", "--emulator", "-v"], input: "pause 1\nquit\n")
        #expect(verbose.status == 0, "stderr: \(verbose.stderr)")
        #expect(verbose.stdout.contains("serial │ MPY: soft reboot"), "\(verbose.stdout)")
        #expect(verbose.stdout.contains("serial │ raw REPL; CTRL-B to exit"), "\(verbose.stdout)")
        let quiet = try await cli.run(["glasses", "connect", "--kind", "monocle", "--emulator"], input: "pause 1\nquit\n")
        #expect(quiet.status == 0, "stderr: \(quiet.stderr)")
        #expect(quiet.stdout.contains("[monocle: running"), "\(quiet.stdout)")
        #expect(!quiet.stdout.contains("serial │"), "\(quiet.stdout)")
    }

    @Test func updateWritesAnFPGAImageWithProgressAndTheGlassesComeBackWithIt() async throws {
        let cli = try runner()
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        let image = cli.home.appendingPathComponent("fpga.bin")
        try Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 131 >> 2) }).write(to: image)
        let result = try await cli.run([
            "glasses", "update", "--kind", "monocle", "--emulator", "--emulated-fpga", "v23.179.1006", "--fpga", image.path, "--fpga-version", "v23.230.0808",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stderr.contains("100%"))
        #expect(result.stdout.contains("FPGA v23.230.0808"))
        let missingVersion = try await cli.run(["glasses", "update", "--kind", "monocle", "--emulator", "--fpga", image.path])
        #expect(missingVersion.status != 0)
        #expect(missingVersion.stderr.contains("--fpga-version"))
    }

    @Test func updateInstallsAFirmwarePackageThroughTheBootloader() async throws {
        let cli = try runner()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../SecureDFUTests/Fixtures/dfu").standardized
        let package = fixtures.appendingPathComponent("monocle-firmware-test.zip").path
        let result = try await cli.run([
            "glasses", "update", "--kind", "monocle", "--emulator", "--emulated-firmware", "v23.200.0900", "--firmware", package,
            "--emulated-bootloader-key", fixtures.appendingPathComponent("test-key-public.pem").path,
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("Firmware package: v23.300.1200, 18000 bytes, hardware 52, signed"))
        #expect(result.stderr.contains("Installing firmware v23.300.1200 (18000 bytes) through the bootloader"))
        #expect(result.stderr.contains("100%"))
        #expect(result.stderr.contains("Firmware installed; the glasses restart"))
        #expect(result.stdout.contains("firmware v23.300.1200 · FPGA v23.230.0808 · app uploaded"), "\(result.stdout)")

        // A bootloader that trusts another key refuses the package, and says so.
        let otherKey = cli.home.appendingPathComponent("other.pem")
        try Data("-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEiTQMXuU61NbcTxBh8plKmPafBmvm\nW1seqnDDyOGdnVCHgYKGttnaqU2XtbLzgP+Xl7JZlbNNrD8glZiZbIqN1g==\n-----END PUBLIC KEY-----\n".utf8).write(to: otherKey)
        let refused = try await cli.run([
            "glasses", "update", "--kind", "monocle", "--emulator", "--emulated-firmware", "v23.200.0900", "--firmware", package, "--emulated-bootloader-key", otherKey.path,
        ])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("The firmware update failed: The bootloader refused to execute the object: the image or its signature does not verify."), "\(refused.stderr)")
        #expect(refused.stderr.contains("run the update again"))

        // A damaged download is refused before anything is sent.
        var zip = try Data(contentsOf: URL(fileURLWithPath: package))
        zip[zip.count / 2] ^= 0xFF
        let damaged = cli.home.appendingPathComponent("damaged.zip")
        try zip.write(to: damaged)
        let bad = try await cli.run(["glasses", "update", "--kind", "monocle", "--emulator", "--firmware", damaged.path])
        #expect(bad.status == 1)
        #expect(bad.stderr.contains("The firmware package is damaged"), "\(bad.stderr)")
    }

    @Test func withoutTheEmulatorTheErrorSaysWhatToDo() async throws {
        let result = try await runner().run(["glasses", "connect", "--kind", "monocle"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("--emulator"))
    }
}
