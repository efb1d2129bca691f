import Foundation
import Testing
import SibylCore

/// `sibyl glasses repl|exec|files|screen|emulate --kind frame` as a Frame device-app author uses
/// them, on the virtual Frame (Lua 5.4 is built in, so nothing needs installing).
@Suite(.timeLimit(.minutes(10)), .serialized)
struct FrameAuthoringCLITests {
    /// A directory holding a Lua app.
    func app(_ files: [String: String], in cli: CLIRunner, named name: String = "app") throws -> URL {
        let directory = cli.home.appendingPathComponent(name, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (file, text) in files { try Data(text.utf8).write(to: directory.appendingPathComponent(file)) }
        return directory
    }

    @Test func execRunsLuaAndReportsItsErrorAsFrameSendsIt() async throws {
        let cli = try CLIRunner(server: nil)
        let result = try await cli.run(["glasses", "exec", "--emulator", "--kind", "frame", "print(6 * 7, 'x') print(frame.HARDWARE_VERSION)"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // print's arguments come as separate notifications with a tab between; each print is a line.
        #expect(result.stdout == "42\tx\nFrame\n", "\(result.stdout.debugDescription)")

        let failed = try await cli.run(["glasses", "exec", "--emulator", "--kind", "frame", "x = nil + 1"])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("The code raised an error on the virtual Frame:"), "\(failed.stderr)")
        #expect(failed.stderr.contains("[string \"x = nil + 1\"]:1: attempt to perform arithmetic on a nil value"), "\(failed.stderr)")

        // Longer than one chunk (MTU − 3 = 244 bytes): written to the flash and required.
        let long = (0..<40).map { "v\($0) = \($0)" }.joined(separator: "\n") + "\nprint(v0 + v39)"
        #expect(long.utf8.count > 244)
        let required = try await cli.run(["glasses", "exec", "--emulator", "--kind", "frame", long])
        #expect(required.status == 0, "stderr: \(required.stderr)")
        #expect(required.stdout == "39\n", "\(required.stdout.debugDescription)")
        let listing = try await cli.run(["glasses", "files", "list", "--emulator", "--kind", "frame"])
        #expect(!listing.stdout.contains("_sibyl_exec"), "the scratch file is removed: \(listing.stdout)")
    }

    @Test func atASmallMTUFilesAndLongCodeStillFitTheChunks() async throws {
        let cli = try CLIRunner(server: nil)
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        let local = cli.home.appendingPathComponent("data.bin")
        let contents = Data((0..<600).map { UInt8(truncatingIfNeeded: $0 &* 131) })
        try contents.write(to: local)
        // --write-length 61: MTU 64, so every chunk is at most 61 bytes (the listing and reading code too).
        let small = ["--emulator", "--kind", "frame", "--write-length", "61"]
        #expect(try await cli.run(["glasses", "files", "put"] + small + [local.path]).status == 0)
        let copy = cli.home.appendingPathComponent("copy.bin")
        let get = try await cli.run(["glasses", "files", "get"] + small + ["data.bin", copy.path])
        #expect(get.status == 0, "stderr: \(get.stderr)")
        #expect(try Data(contentsOf: copy) == contents)
        let list = try await cli.run(["glasses", "files", "list"] + small)
        #expect(list.stdout == "600       data.bin\n", "the session's scratch files are not listed: \(list.stdout.debugDescription)")
        // An error in required code, longer than one notification, still comes back whole.
        let code = (0..<10).map { "v\($0) = \($0)" }.joined(separator: "\n") + "\nprint(v9)\nerror('a rather long message that does not fit in one notification')"
        let failed = try await cli.run(["glasses", "exec"] + small + [code])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("9\n"), "what it printed first: \(failed.stderr)")
        #expect(failed.stderr.contains("[string \"_sibyl_exec.lua\"]:12: a rather long message that does not fit in one notification"), "\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("frame/emulator/_sibyl_exec.lua").path))
    }

    @Test func theREPLSendsEachLineAndShowsWhatItPrints() async throws {
        let cli = try CLIRunner(server: nil)
        let input = "print(1, 2)\nprint('a') print('b')\nx = = 1\nfor i = 1, 3 do print(i) end\n"
        let result = try await cli.run(["glasses", "repl", "--emulator", "--kind", "frame"], input: input)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("lua> 1\t2\nlua> a\nb\nlua> "), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("[string \"x = = 1\"]:1: unexpected symbol near '='\nlua> "), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("lua> 1\n2\n3\nlua> "), "\(result.stdout.debugDescription)")
        #expect(result.stderr.contains("Connected to the virtual Frame"), "\(result.stderr)")
    }

    @Test func filesArePutListedFetchedAndRemovedBinarySafe() async throws {
        let cli = try CLIRunner(server: nil)
        try FileManager.default.createDirectory(at: cli.home, withIntermediateDirectories: true)
        let local = cli.home.appendingPathComponent("blob.bin")
        // Every byte value, newlines in runs, a line longer than Frame's 512-byte read, no final newline.
        var contents = Data((0..<1_200).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) })
        contents.append(Data(repeating: 0x0A, count: 3))
        contents.append(Data(repeating: 0x41, count: 700))
        contents.append(contentsOf: [0x00, 0x5C, 0x22, 0x27])
        try contents.write(to: local)
        let put = try await cli.run(["glasses", "files", "put", "--emulator", "--kind", "frame", local.path])
        #expect(put.status == 0, "stderr: \(put.stderr)")
        #expect(put.stdout.contains("blob.bin  \(contents.count) bytes → the virtual Frame"), "\(put.stdout)")
        // The file on the virtual Frame's flash is the same bytes.
        #expect(try Data(contentsOf: cli.home.appendingPathComponent("frame/emulator/blob.bin")) == contents)

        let list = try await cli.run(["glasses", "files", "list", "--emulator", "--kind", "frame"])
        #expect(list.status == 0, "stderr: \(list.stderr)")
        #expect(list.stdout.contains("\(contents.count)      blob.bin"), "\(list.stdout)")

        let copy = cli.home.appendingPathComponent("copy.bin")
        let get = try await cli.run(["glasses", "files", "get", "--emulator", "--kind", "frame", "blob.bin", copy.path])
        #expect(get.status == 0, "stderr: \(get.stderr)")
        #expect(try Data(contentsOf: copy) == contents)

        let remove = try await cli.run(["glasses", "files", "remove", "--emulator", "--kind", "frame", "blob.bin"])
        #expect(remove.status == 0, "stderr: \(remove.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.home.appendingPathComponent("frame/emulator/blob.bin").path))

        let missing = try await cli.run(["glasses", "files", "get", "--emulator", "--kind", "frame", "blob.bin", copy.path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("There is no blob.bin on the virtual Frame."), "\(missing.stderr)")
    }

    @Test func theKindComesFromThePairedGlasses() async throws {
        let cli = try CLIRunner(server: nil)
        #expect(try await cli.run(["config", "set", "glasses.kind", "frame"]).status == 0)
        let result = try await cli.run(["glasses", "exec", "--emulator", "print(_VERSION)"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout == "Lua 5.4\n", "\(result.stdout.debugDescription)")
    }

    @Test func watchUploadsChangedFilesThenBreaksAndResets() async throws {
        let cli = try CLIRunner(server: nil)
        let app = try app(["main.lua": "print('version', 1)\nwhile true do frame.sleep(0.05) end\n"], in: cli)
        try await cli.withStarted(["glasses", "repl", "--emulator", "--kind", "frame", "--watch", app.path]) { running in
            try await running.waitForOutput(containing: "version\t1", timeout: .seconds(120))
            #expect(running.stdout.text.contains("version\t1"), "\(running.stdout.text)")
            try Data("print('version', 2)\nwhile true do frame.sleep(0.05) end\n".utf8).write(to: app.appendingPathComponent("main.lua"))
            try await running.waitForOutput(containing: "version\t2", timeout: .seconds(120))
            #expect(running.stdout.text.contains("version\t2"), "\(running.stdout.text)")
            // The running app was broken before the upload.
            #expect(running.stdout.text.contains("break signal"), "\(running.stdout.text)")
            #expect(running.stderr.text.contains("[watch] uploading main.lua"), "\(running.stderr.text)")
            // Ctrl-C sends a break; a second one leaves.
            running.process.interrupt()
            try await running.waitForOutput(containing: "Ctrl-C again to leave", inErrors: true, timeout: .seconds(30))
            running.process.interrupt()
            let result = await running.finish()
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
    }

    @Test func screenWritesTheVirtualFramesDisplayAsPNG() async throws {
        let cli = try CLIRunner(server: nil)
        let app = try app([
            "main.lua": """
            require('colours')
            frame.display.bitmap(1, 1, 8, 2, 2, string.rep('\\xFF', 8))
            frame.display.text('Hello, Frame!', 50, 100, {color = 'GREEN'})
            frame.display.show()
            while true do frame.sleep(0.05) end
            """,
            "colours.lua": "frame.display.assign_color('RED', 200, 10, 20)\n",
        ], in: cli)
        let png = cli.home.appendingPathComponent("screen.png")
        let result = try await cli.run(["glasses", "screen", "--emulator", "--kind", "frame", "--scripts", app.path, "--png", png.path, "--after", "0"])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("│ Hello, Frame!"), "\(result.stdout)")
        #expect(result.stdout.contains("wrote \(png.path) (640×400)"), "\(result.stdout)")
        let decoded = try await DisplayImageDecoding.decode(try Data(contentsOf: png))
        #expect(decoded.width == 640 && decoded.height == 400)
        // The bitmap: value 1 + palette offset 2 is RED, assigned (200, 10, 20); 8 px wide, 8 rows.
        #expect(decoded.pixel(0, 0) == 0xC80A14)
        #expect(decoded.pixel(7, 7) == 0xC80A14)
        #expect(decoded.pixel(8, 0) == 0)
        #expect(decoded.pixel(0, 8) == 0)
        // Text is drawn from its 1-based top-left, in its colour.
        let text = (99..<132).flatMap { y in (49..<300).map { decoded.pixel($0, y) } }.filter { $0 != 0 }
        #expect(!text.isEmpty && Set(text).count == 1, "one colour of text")
        #expect(decoded.pixel(639, 399) == 0)

        // An app with a syntax error: its error, not silence.
        let broken = try self.app(["main.lua": "print('hi')\nfrobnicate(\n"], in: cli, named: "broken")
        let failed = try await cli.run(["glasses", "screen", "--emulator", "--kind", "frame", "--scripts", broken.path])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("The app ended without showing anything."), "\(failed.stderr)")
        #expect(failed.stderr.contains("[string \"main.lua\"]:3: unexpected symbol near <eof>"), "\(failed.stderr)")
    }

    @Test func emulateRunsAnAppWithItsPrintsDataDisplayAndMessages() async throws {
        let cli = try CLIRunner(server: nil)
        let app = try app([
            "main.lua": """
            frame.display.text('ready', 1, 1)
            frame.display.show()
            print('started', 1)
            frame.imu.tap_callback(function() frame.bluetooth.send('\\x09\\x01') end)
            frame.bluetooth.receive_callback(function(data)
              print('got', #data, data:byte(1))
              frame.bluetooth.send('\\x00')
            end)
            while true do frame.sleep(0.02) end
            """,
        ], in: cli)
        let png = cli.home.appendingPathComponent("emulated.png")
        let result = try await cli.run(
            ["glasses", "emulate", "--kind", "frame", "--app", app.path, "--mtu", "23"],
            input: "pause 1\ntap\npause 0.5\nsend 20 \(String(repeating: "ab", count: 60))\npause 0.5\nscreen --png \(png.path)\nquit\n"
        )
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.stdout.contains("serial │ started\t1\n"), "\(result.stdout)")
        #expect(result.stdout.contains("│ ready"), "the shown frame's text: \(result.stdout)")
        #expect(result.stdout.contains("data   │ 09 01\n"), "a tap's data, flag byte first: \(result.stdout)")
        // At MTU 23 a data write carries 19 bytes: the code, the size and 16 bytes, then the code and
        // 18 bytes each: 60 bytes go in 4 packets, each acknowledged by the app.
        #expect(result.stdout.contains("sent message 0x20 (60 bytes) in 4 packets, 4 acknowledged"), "\(result.stdout)")
        #expect(result.stdout.contains("serial │ got\t19\t32\n"), "\(result.stdout)")
        #expect(result.stdout.contains("serial │ got\t9\t32\n"), "\(result.stdout)")
        #expect(result.stdout.contains("wrote \(png.path) (640×400)"), "\(result.stdout)")

        let broken = try self.app(["main.lua": "print('hi')\nfrobnicate(\n"], in: cli, named: "broken")
        let failed = try await cli.run(["glasses", "emulate", "--kind", "frame", "--app", broken.path], input: "pause 1\nquit\n")
        #expect(failed.status == 0, "stderr: \(failed.stderr)")
        #expect(failed.stdout.contains("[string \"main.lua\"]:3: unexpected symbol near <eof>"), "\(failed.stdout)")

        let noMain = try self.app(["app.lua": "print(1)\n"], in: cli, named: "nomain")
        let refused = try await cli.run(["glasses", "emulate", "--kind", "frame", "--app", noMain.path])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("has no main.lua"), "\(refused.stderr)")
    }
}

/// Decodes PNG files with Python's zlib, an implementation independent of Sibyl's encoder.
enum DisplayImageDecoding {
    struct Decoded {
        var width: Int
        var height: Int
        var rgb: [UInt8]

        func pixel(_ x: Int, _ y: Int) -> Int {
            let index = (y * width + x) * 3
            return Int(rgb[index]) << 16 | Int(rgb[index + 1]) << 8 | Int(rgb[index + 2])
        }
    }

    static func decode(_ png: Data) async throws -> Decoded {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-png-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.png"), output = directory.appendingPathComponent("out.rgb")
        try png.write(to: input)
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", """
        import struct, sys, zlib
        d = open(sys.argv[1], 'rb').read(); i = 8; idat = b''; size = None
        while i < len(d):
            n, = struct.unpack('>I', d[i:i+4]); k = d[i+4:i+8]
            if k == b'IHDR': size = struct.unpack('>II', d[i+8:i+16])
            if k == b'IDAT': idat += d[i+8:i+8+n]
            i += 12 + n
        raw = zlib.decompress(idat); w, h = size; out = b''
        for r in range(h): out += raw[r * (3 * w + 1) + 1:(r + 1) * (3 * w + 1)]
        open(sys.argv[2], 'wb').write(out); print(w, h)
        """, input.path, output.path]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        await python.exited()
        let size = String(decoding: await PipeDrain.readToEnd(pipe.fileHandleForReading), as: UTF8.self).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard size.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return Decoded(width: size[0], height: size[1], rgb: [UInt8](try Data(contentsOf: output)))
    }
}
