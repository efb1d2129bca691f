import Foundation
import LocalEngines
import Testing
import SibylCore

/// `sibyl glasses` as a device-app author uses it, on the virtual glasses.
@Suite(
    .timeLimit(.minutes(10)), .serialized,
    .enabled(
        if: EngineInstaller(layout: EngineLayout()).status().first { $0.name == "emulator" }?.installed == true
            || ProcessInfo.processInfo.environment["SIBYL_REQUIRE_ENGINES"] == "1",
        "the Monocle emulator is not installed (sibyl models install emulator)"
    )
)
struct GlassesCLITests {
    func runner() throws -> CLIRunner {
        var runner = try CLIRunner(server: nil)
        runner.environment["SIBYL_ENGINES"] = EngineLayout().root.path
        return runner
    }

    /// A directory holding an app's `main.py`.
    func app(_ main: String, in cli: CLIRunner, named name: String = "app") throws -> URL {
        let directory = cli.home.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(main.utf8).write(to: directory.appendingPathComponent("main.py"))
        return directory
    }

    @Test func emulateShowsWhatTheAppPrintsAndItsTraceback() async throws {
        let cli = try runner()
        let app = try app("print('starting up')\nimport nosuchmodule\n", in: cli)
        let result = try await cli.run(["glasses", "emulate", "--kind", "monocle", "--scripts", app.path], input: "pause 2\nquit\n")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("serial │ starting up\n"), "\(result.stdout)")
        #expect(result.stdout.contains("serial │ Traceback (most recent call last):\n"), "\(result.stdout)")
        // The line numbers are those of the author's file.
        #expect(result.stdout.contains("serial │   File \"main.py\", line 2, in <module>\n"), "\(result.stdout)")
        #expect(result.stdout.contains("serial │ ImportError: no module named 'nosuchmodule'\n"), "\(result.stdout)")
    }

    @Test func emulateWritesTheScreenAsPNGAndTakesABusyLink() async throws {
        let cli = try runner()
        let app = try app("""
        import bluetooth, display, time
        display.show(display.Text("Hello", 0, 0, display.GREEN))
        while not bluetooth.connected():
            time.sleep_ms(10)
        for i in range(5):
            try:
                bluetooth.send(b"n:" + str(i).encode())
            except OSError as e:
                print("send", i, e)

        """, in: cli)
        let png = cli.home.appendingPathComponent("screen.png")
        let result = try await cli.run(
            ["glasses", "emulate", "--kind", "monocle", "--scripts", app.path, "--data-queue", "2", "--connection-interval", "600000"],
            input: "pause 2\nscreen --png \(png.path)\nquit\n"
        )
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("serial │ send 2 raw data service is busy"), "\(result.stdout)")
        #expect(result.stdout.contains("wrote \(png.path) (640×400)"), "\(result.stdout)")
        let data = try Data(contentsOf: png)
        #expect(data.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        #expect(data[16..<24] == Data([0, 0, 2, 0x80, 0, 0, 1, 0x90]))

        let refused = try await cli.run(["glasses", "emulate", "--kind", "monocle", "--data-queue", "0"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--data-queue needs at least 1"), "\(refused.stderr)")
    }

    @Test func theREPLHasFriendlyPasteAndRawModes() async throws {
        let cli = try runner()
        let input = "print(6*7)\n\u{05}for i in range(2):\n    print('row', i)\n\u{04}for j in range(2):\n  print('loop', j)\n\n\u{01}print('raw'+'mode')\u{04}\u{02}"
        let result = try await cli.run(["glasses", "repl", "--emulator"], input: input)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains(">>> print(6*7)\r\n42\r\n>>> "), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("paste mode; Ctrl-C to cancel, Ctrl-D to finish\r\n=== for i in range(2):"), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("row 0\r\nrow 1\r\n>>> "), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains(">>> for j in range(2):\r\n...   print('loop', j)\r\n... \r\nloop 0\r\nloop 1\r\n"), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("raw REPL; CTRL-B to exit\r\n>OKrawmode\r\n\u{04}\u{04}>"), "\(result.stdout.debugDescription)")
        #expect(result.stderr.contains("Connected to the virtual Monocle"))
    }

    @Test func ctrlCInterruptsTheRunningApp() async throws {
        let cli = try runner()
        let app = try app("import display\nn = 0\nwhile True:\n    n += 1\n    display.show(display.Text('n', 0, 0, display.WHITE))\n", in: cli)
        let result = try await cli.run(["glasses", "repl", "--emulator", "--scripts", app.path], input: "\u{03}print('counted', n > 0)\n")
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("KeyboardInterrupt"), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("counted True"), "\(result.stdout.debugDescription)")
    }

    @Test func filesArePutListedFetchedAndRemoved() async throws {
        let cli = try runner()
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        let local = cli.home.appendingPathComponent("notes.bin")
        let contents = Data((0..<1_500).map { UInt8(truncatingIfNeeded: $0 &* 7) }) // binary, several pieces
        try contents.write(to: local)
        let put = try await cli.run(["glasses", "files", "put", "--emulator", local.path])
        #expect(put.status == 0, "stderr: \(put.stderr)")
        #expect(put.stdout.contains("notes.bin  1500 bytes → the virtual Monocle"))

        let list = try await cli.run(["glasses", "files", "list", "--emulator"])
        #expect(list.status == 0, "stderr: \(list.stderr)")
        #expect(list.stdout.contains("1500      notes.bin"), "\(list.stdout)")

        let copy = cli.home.appendingPathComponent("copy.bin")
        let get = try await cli.run(["glasses", "files", "get", "--emulator", "notes.bin", copy.path])
        #expect(get.status == 0, "stderr: \(get.stderr)")
        #expect(try Data(contentsOf: copy) == contents)

        let remove = try await cli.run(["glasses", "files", "remove", "--emulator", "notes.bin"])
        #expect(remove.status == 0, "stderr: \(remove.stderr)")
        #expect(try await cli.run(["glasses", "files", "list", "--emulator"]).stdout.contains("no files"))

        let missing = try await cli.run(["glasses", "files", "get", "--emulator", "notes.bin", copy.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("There is no notes.bin on the virtual Monocle."), "\(missing.stderr)")
        #expect(missing.stderr.contains("sibyl glasses files list"))
    }

    @Test func watchUploadsChangedFilesAndResets() async throws {
        let cli = try runner()
        let app = try app("print('version', 1)\n", in: cli)
        try await cli.withStarted(["glasses", "repl", "--emulator", "--watch", app.path]) { running in
            try await running.waitForOutput(containing: "version 1", timeout: .seconds(300))
            #expect(running.stdout.text.contains("version 1"), "\(running.stdout.text)")
            try Data("print('version', 2)\n".utf8).write(to: app.appendingPathComponent("main.py"))
            try await running.waitForOutput(containing: "version 2", timeout: .seconds(300))
            #expect(running.stdout.text.contains("MPY: soft reboot"), "\(running.stdout.text)")
            #expect(running.stdout.text.contains("version 2"), "\(running.stdout.text)")
            #expect(running.stderr.text.contains("[watch] uploading main.py"), "\(running.stderr.text)")
            running.process.interrupt()
            let result = await running.finish()
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
    }

    @Test func watchCarriesOnAfterTheGlassesRestart() async throws {
        let cli = try runner()
        // The app restarts the glasses once (a file on them remembers it did).
        let app = try app("import device, os\nif 'restarted' not in os.listdir():\n    open('restarted', 'w').close()\n    device.reset()\n", in: cli)
        try await cli.withStarted(["glasses", "repl", "--emulator", "--watch", app.path]) { running in
            try await running.waitForOutput(containing: "connected to the virtual Monocle again", inErrors: true, timeout: .seconds(300))
            #expect(running.stderr.text.contains("[the virtual Monocle disconnected (the glasses restarted); connecting again…]"), "\(running.stderr.text)")
            try Data("print('back', 2)\n".utf8).write(to: app.appendingPathComponent("main.py"))
            try await running.waitForOutput(containing: "back 2", timeout: .seconds(300))
            #expect(running.stdout.text.contains("back 2"), "\(running.stdout.text) \(running.stderr.text)")
            running.process.interrupt()
            let result = await running.finish()
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
    }

    @Test func screenWritesTheVirtualDisplayAsPNG() async throws {
        let cli = try runner()
        let app = try app("import display\ndisplay.show(display.Rectangle(0, 0, 639, 399, display.BLUE), display.Text('Hi', 0, 0, display.GREEN))\n", in: cli)
        let png = cli.home.appendingPathComponent("screen.png")
        let result = try await cli.run(["glasses", "screen", "--emulator", "--scripts", app.path, "--png", png.path, "--after", "0"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("| Hi"), "\(result.stdout)")
        // The pixel at the bottom right is the rectangle's blue (decoded by Python's zlib).
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", """
        import struct, sys, zlib
        d = open(sys.argv[1], 'rb').read(); i = 8; idat = b''
        while i < len(d):
            n, = struct.unpack('>I', d[i:i+4]); k = d[i+4:i+8]
            if k == b'IDAT': idat += d[i+8:i+8+n]
            i += 12 + n
        raw = zlib.decompress(idat); row = 399 * (640 * 3 + 1) + 1
        print(raw[row + 639 * 3:row + 640 * 3].hex())
        """, png.path]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        await python.exited()
        #expect(String(decoding: await PipeDrain.readToEnd(pipe.fileHandleForReading), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) == "2a4bd7")

        // An app that fails before drawing: the error shows why.
        let broken = try self.app("import nosuchmodule\n", in: cli, named: "broken")
        let failed = try await cli.run(["glasses", "screen", "--emulator", "--scripts", broken.path, "--png", png.path])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("The app ended without drawing anything."), "\(failed.stderr)")
        #expect(failed.stderr.contains("ImportError: no module named 'nosuchmodule'"), "\(failed.stderr)")

        let none = try await runner().run(["glasses", "screen", "--emulator", "--png", png.path])
        #expect(none.status == 1)
        #expect(none.stderr.contains("The virtual glasses have no app (no main.py)."), "\(none.stderr)")

        let real = try await cli.run(["glasses", "screen", "--png", png.path])
        #expect(real.status == 1)
        #expect(real.stderr.contains("--emulator"), "\(real.stderr)")
    }

    @Test func execRunsCodeAndReportsItsTraceback() async throws {
        let cli = try runner()
        let result = try await cli.run(["glasses", "exec", "--emulator", "import device\nprint(device.NAME, 6 * 7)"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "monocle 42\n")
        let failed = try await cli.run(["glasses", "exec", "--emulator", "print(undefined_name)"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("The code raised an exception on the virtual Monocle:"), "\(failed.stderr)")
        #expect(failed.stderr.contains("NameError: name 'undefined_name' isn't defined"), "\(failed.stderr)")
    }
}
