import Foundation
import FrameEmulator
import FrameOracle
import Testing

/// The behaviours the firmware's own hardware test expects (re-expressed from its published API
/// expectations, through the REPL as a host would see them).
@Suite("Frame API conformance", .timeLimit(.minutes(10)))
struct ConformanceTests {
    @Test("version strings, address, math")
    func versions() async throws {
        try await TestFrame.with { _, link async throws in
            #expect(try await link.evaluate("type(frame.HARDWARE_VERSION)") == "string")
            #expect(try await link.evaluate("frame.HARDWARE_VERSION") == "Frame")
            #expect(try await link.evaluate("frame.FIRMWARE_VERSION").count == 12)
            #expect(try await link.evaluate("frame.GIT_TAG").count == 7)
            #expect(try await link.evaluate("frame.bluetooth.address()").count == 17)
            #expect(try await link.evaluate("math.sqrt(25)") == "5.0")
            #expect(try await link.evaluate("type(frame.update)") == "function")
            #expect(try await link.evaluate("frame.bluetooth.is_connected()") == "true")
            #expect(try await link.evaluate("type(io)..type(os)..type(package)") == "nilnilnil")
        }
    }

    /// Prints max_length, sends a string of exactly that length, then reports whether one byte more
    /// fails with the firmware's error (short prints, so even MTU 23 carries them).
    static let lengthCheck = """
        local m = frame.bluetooth.max_length()
        print(m)
        frame.bluetooth.send(string.rep('a', m))
        local ok, e = pcall(frame.bluetooth.send, string.rep('a', m + 1))
        print(e == 'string length is greater than max_length()')
        """

    @Test("max_length is MTU − 4 and send is limited to it", arguments: [247, 100, 23])
    func maxLength(mtu: Int) async throws {
        try await TestFrame.with(files: ["len.lua": Self.lengthCheck], mtu: mtu) { _, link async throws in
            let maximum = mtu - 4
            let start = link.mark
            try await link.emulator.send(lua: "require('len')")
            let tail = try await link.wait(after: start, for: "the length check") { $0.count >= 3 }
            #expect(tail == [Data("\(maximum)".utf8), Data([0x01]) + Data(repeating: 0x61, count: maximum), Data("true".utf8)])
        }
    }

    @Test("send keeps NUL bytes and prefixes 0x01; an over-long send reports the firmware's error")
    func send() async throws {
        try await TestFrame.with { _, link async throws in
            var start = link.mark
            #expect(try await link.error(of: "frame.bluetooth.send('123')") == nil)
            #expect(link.all.dropFirst(start).first == Data([0x01]) + Data("123".utf8))
            start = link.mark
            #expect(try await link.error(of: "frame.bluetooth.send('12\\0003')") == nil)
            #expect(link.all.dropFirst(start).first == Data([0x01, 0x31, 0x32, 0x00, 0x33]))
            #expect(try await link.error(of: "frame.bluetooth.send(string.rep('a',244))") == "string length is greater than max_length()")
        }
    }

    @Test("without an MTU exchange max_length is -1 and every send fails")
    func noMTUExchange() async throws {
        let check = "print(frame.bluetooth.max_length()) print(pcall(frame.bluetooth.send, ''))"
        try await TestFrame.with(files: ["nm.lua": check], mtu: nil) { emulator, link async throws in
            #expect(emulator.maximumWriteLength == 20)
            let start = link.mark
            try await emulator.send(lua: "require('nm')")
            // The error text (42 bytes) does not fit a 20-byte notification, so it is lost.
            let tail = try await link.wait(after: start, for: "the check") { $0.count >= 3 }
            #expect(tail.prefix(3).map { String(decoding: $0, as: UTF8.self) } == ["-1", "false", "\t"])
        }
    }

    @Test("data echo through receive_callback")
    func echo() async throws {
        try await TestFrame.with { emulator, link async throws in
            #expect(try await link.error(of: "frame.bluetooth.receive_callback((function(d)frame.bluetooth.send(d)end))") == nil)
            let start = link.mark
            try await emulator.write(Data([0x01]) + Data("test".utf8))
            try await link.wait(after: start, for: "the echo") { $0.contains(Data([0x01]) + Data("test".utf8)) }
            #expect(try await link.error(of: "frame.bluetooth.receive_callback(nil)") == nil)
            #expect(try await link.error(of: "frame.bluetooth.receive_callback(5)") == "expected nil or function")
        }
    }

    @Test("display arguments and the drawing log")
    func display() async throws {
        try await TestFrame.with { emulator, link async throws in
            #expect(try await link.error(of: "frame.display.power_save(true)") == nil)
            #expect(emulator.display.isPowerSaving)
            #expect(try await link.error(of: "frame.display.power_save(false)") == nil)
            #expect(try await link.error(of: "frame.display.text('Hello there!', 50, 50)") == nil)
            #expect(try await link.error(of: "frame.display.text('Hello there!', 0, 50)") == "x_position must be between 1 and 640 pixels")
            #expect(try await link.error(of: "frame.display.text('Hello there!', 50, 0)") == "y_position must be between 1 and 400 pixels")
            #expect(try await link.error(of: "frame.display.text('Wide text!', 50, 100, {spacing=10})") == nil)
            #expect(try await link.error(of: "frame.display.text('Red', 50, 150, {color='RED'})") == nil)
            #expect(try await link.error(of: "frame.display.text('Blue', 50, 250, {color='BLUE'})") == "Invalid color name")
            #expect(try await link.error(of: "frame.display.show()") == nil)
            let shown = try #require(emulator.display.current)
            #expect(shown.texts == ["Hello there!", "Wide text!", "Red"])
            #expect(shown.drawings[1] == .text("Wide text!", x: 50, y: 100, color: "WHITE", paletteOffset: 0, spacing: 10))
            #expect(shown.drawings[2] == .text("Red", x: 50, y: 150, color: "RED", paletteOffset: 2, spacing: 4))
            #expect(emulator.display.pending.isEmpty)

            #expect(try await link.error(of: "frame.display.assign_color('RED', 0, 255, 128)") == nil)
            #expect(emulator.display.palette[3].rgb == [0, 255, 128])
            #expect(try await link.error(of: "frame.display.assign_color('BLUE', 0, 0, 0)") == "Invalid color name")
            #expect(try await link.error(of: "frame.display.assign_color('SKYBLUE', 256, 0, 0)") == "red component must be between 0 and 255")
            #expect(try await link.error(of: "frame.display.assign_color('SKYBLUE', 0, 256, 0)") == "green component must be between 0 and 255")
            #expect(try await link.error(of: "frame.display.assign_color('SKYBLUE', 0, 0, 256)") == "blue component must be between 0 and 255")
            #expect(try await link.error(of: "frame.display.assign_color_ycbcr('RED', 5, 3, 6)") == nil)
            #expect(emulator.display.palette[3].y == 5 && emulator.display.palette[3].cb == 3 && emulator.display.palette[3].rgb == nil)
            #expect(try await link.error(of: "frame.display.assign_color_ycbcr('BLUE', 13, 4, 3)") == "Invalid color name")
            #expect(try await link.error(of: "frame.display.assign_color_ycbcr('RED', 16, 0, 0)") == "Y component must be between 0 and 15")
            #expect(try await link.error(of: "frame.display.assign_color_ycbcr('RED', 0, 8, 0)") == "Cb component must be between 0 and 7")
            #expect(try await link.error(of: "frame.display.assign_color_ycbcr('RED', 0, 0, 8)") == "Cr component must be between 0 and 7")

            #expect(try await link.error(of: "frame.display.bitmap(1, 1, 4, 2, 1, '\\xF0')") == nil)
            #expect(try await link.error(of: "frame.display.bitmap(1, 1, 4, 3, 1, '\\xF0')") == "total_colors must be either 2, 4 or 16")
            #expect(try await link.error(of: "frame.display.bitmap(1, 1, 4, 2, 16, '\\xF0')") == "palette_offset must be between 0 and 15")
            #expect(try await link.error(of: "frame.display.set_brightness(3)") == "level must be -2, -1, 0, 1, or 2")
            #expect(try await link.error(of: "frame.display.write_register(256, 0)") == "address must be a 8 bit unsigned number")
            #expect(emulator.display.pending == [.bitmap(x: 1, y: 1, width: 4, totalColors: 2, paletteOffset: 1, pixels: Data([0xF0]))])
        }
    }

    @Test("camera capture, ready flag, reads and argument errors")
    func camera() async throws {
        try await TestFrame.with { _, link async throws in
            #expect(try await link.lua("frame.camera.capture{}; print(frame.camera.image_ready())") == "false")
            #expect(try await link.error(of: "frame.sleep(0.05)") == nil)
            #expect(try await link.evaluate("frame.camera.image_ready()") == "true")
            for resolution in [100, 256, 512, 720] {
                #expect(try await link.error(of: "frame.camera.capture { resolution = \(resolution) }") == nil)
            }
            for resolution in [80, 513, 721] {
                #expect(try await link.error(of: "frame.camera.capture { resolution = \(resolution) }")
                        == "resolution value must be a multiple of 2 between 100 and 720")
            }
            for quality in ["VERY_HIGH", "HIGH", "MEDIUM", "LOW", "VERY_LOW"] {
                #expect(try await link.error(of: "frame.camera.capture { quality = '\(quality)' }") == nil)
            }
            for quality in ["50", "'BAD'"] {
                #expect(try await link.error(of: "frame.camera.capture { quality = \(quality) }")
                        == "quality must be either VERY_HIGH, HIGH, MEDIUM, LOW or VERY_LOW")
            }
            for pan in [-140, -75, 0, 75, 140] {
                #expect(try await link.error(of: "frame.camera.capture { pan = \(pan) }") == nil)
            }
            for pan in [-141, 200] {
                #expect(try await link.error(of: "frame.camera.capture { pan = \(pan) }") == "pan value must be value between -140 and 140")
            }
            #expect(try await link.error(of: "frame.sleep(0.1)") == nil)
            #expect(try await link.evaluate("#frame.camera.read(123)") == "123")
            #expect(try await link.evaluate("#frame.camera.read_raw(54)") == "54")
            #expect(try await link.error(of: "frame.camera.read(0)") == "bytes must be greater than 0")
            #expect(try await link.evaluate("type(frame.camera.auto{})") == "table")
            #expect(try await link.evaluate("frame.camera.auto{}.brightness.matrix.r ~= nil") == "true")
            #expect(try await link.error(of: "frame.camera.auto{metering='EDGE'}") == "metering must be SPOT, CENTER_WEIGHTED or AVERAGE")
            #expect(try await link.error(of: "frame.camera.set_shutter(3)") == "shutter must be between 4 and 16383")
            #expect(try await link.error(of: "frame.camera.power_save(true)") == nil)
            #expect(try await link.error(of: "frame.camera.capture{}") == "camera is asleep")
            #expect(try await link.error(of: "frame.camera.power_save(false)") == nil)
            #expect(try await link.error(of: "frame.camera.capture{}") == nil)
        }
    }

    @Test("read serves header, data and footer; read_raw leaves the 623-byte header out")
    func cameraPhases() async throws {
        let jpeg = Data([0xFF, 0xD8]) + Data((0..<1000).map { UInt8($0 % 251) }) + Data([0xFF, 0xD9])
        let grab = """
            function grab(read)
              frame.camera.capture{}
              while not frame.camera.image_ready() do frame.sleep(0.005) end
              local parts = {}
              while true do local d = read(100); if d == nil then break end; parts[#parts + 1] = d end
              local f = frame.file.open('out', 'w'); f:write(table.concat(parts)); f:close()
              return #parts
            end
            """
        try await TestFrame.with(files: ["grab.lua": grab]) { emulator, link async throws in
            emulator.setCameraImage(jpeg: jpeg)
            #expect(try await link.evaluate("require('grab') and grab(frame.camera.read)") == "\(7 + 4 + 1)")
            #expect(emulator.readFile("out") == jpeg)
            #expect(try await link.evaluate("grab(frame.camera.read_raw)") == "\(4 + 1)")
            #expect(emulator.readFile("out") == jpeg.dropFirst(623))
        }
    }

    @Test("microphone start/stop, arguments and reads")
    func microphone() async throws {
        try await TestFrame.with { _, link async throws in
            for arguments in ["{}", "{sample_rate=16000}", "{bit_depth=16}", "{sample_rate=16000, bit_depth=16}"] {
                #expect(try await link.error(of: "frame.microphone.start\(arguments)") == nil)
                #expect(try await link.error(of: "frame.microphone.stop()") == nil)
            }
            #expect(try await link.error(of: "frame.microphone.start{sample_rate=24000}") == "sample rate must be 8000 or 16000")
            #expect(try await link.error(of: "frame.microphone.start{bit_depth=32}") == "bit depth must be 8 or 16")
            #expect(try await link.error(of: "frame.microphone.start{}") == nil)
            #expect(try await link.error(of: "frame.microphone.start{}") == "already started")
            #expect(try await link.error(of: "frame.sleep(0.25)") == nil)
            #expect(try await link.evaluate("#frame.microphone.read(10)") == "10")
            #expect(try await link.evaluate("#frame.microphone.read(256)") == "256")
            #expect(try await link.error(of: "frame.microphone.read(11)") == "bytes must be a multiple of 2")
            #expect(try await link.error(of: "frame.microphone.stop()") == nil)
            // Stopped: what is left drains, then nil.
            #expect(try await link.lua("while frame.microphone.read(1024) do end print(frame.microphone.read(2))") == "nil")
        }
    }

    @Test("microphone samples: 8 kHz keeps every other sample, 8-bit its high byte, 16-bit little-endian")
    func microphoneSamples() async throws {
        let samples = (0..<4000).map { Int16(truncatingIfNeeded: ($0 * 97) &- 20000) }
        try await TestFrame.with(configure: { $0.clock = .virtual }) { emulator, link async throws in
            emulator.setMicrophoneInput(samples: samples)
            let record = """
                function record(rate, depth)
                  frame.microphone.start{sample_rate = rate, bit_depth = depth}
                  frame.sleep(0.2)
                  frame.microphone.stop()
                  local parts = {}
                  while true do local d = frame.microphone.read(200); if d == nil then break end; parts[#parts + 1] = d end
                  local f = frame.file.open('pcm', 'w'); f:write(table.concat(parts)); f:close()
                  return 'ok'
                end
                """
            try emulator.writeFile("record.lua", text: record)
            #expect(try await link.lua("require('record'); print(type(record))") == "function")
            func run(rate: Int, depth: Int) async throws -> [UInt8] {
                #expect(try await link.evaluate("record(\(rate), \(depth))") == "ok")
                return [UInt8](emulator.readFile("pcm") ?? Data())
            }
            let eight = try await run(rate: 8000, depth: 8)
            #expect(eight.count == 1600)
            #expect(eight.elementsEqual((0..<1600).map { UInt8(truncatingIfNeeded: samples[$0 * 2] >> 8) }))
            let sixteen = try await run(rate: 16000, depth: 16)
            #expect(sixteen.count == 6400)
            #expect(sixteen.elementsEqual(samples.prefix(3200).flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }))
        }
    }

    @Test("IMU direction and tap callback")
    func imu() async throws {
        try await TestFrame.with { emulator, link async throws in
            for key in ["heading", "roll", "pitch"] {
                #expect(try await link.evaluate("type(frame.imu.direction()['\(key)'])") == "number")
            }
            emulator.setIMU(accelerometer: (0, 4096, 4096))
            #expect(try await link.evaluate("math.floor(frame.imu.direction().pitch + 0.5)") == "45")
            #expect(try await link.evaluate("frame.imu.raw().accelerometer.y") == "4096.0")
            #expect(try await link.error(of: "frame.imu.tap_callback((function()print('tap')end))") == nil)
            let start = link.mark
            try await emulator.tap()
            #expect(try await link.print(after: start) == "tap")
            #expect(try await link.error(of: "frame.imu.tap_callback(nil)") == nil)
        }
    }

    @Test("time: the RTC, zones and dates", arguments: [FrameEmulatorConfiguration.Clock.virtual, .realTime])
    func time(clock: FrameEmulatorConfiguration.Clock) async throws {
        try await TestFrame.with(configure: { $0.clock = clock }) { _, link async throws in
            #expect(try await link.error(of: "frame.time.utc(1698756584)") == nil)
            #expect(try await link.error(of: "frame.sleep(2.0)") == nil)
            // The clock ran on for the 2 s slept, and for however long this busy machine took to
            // carry the chunks (the ceiling is against a clock that jumps, not a speed bound).
            let after = try #require(Int(try await link.evaluate("math.floor(frame.time.utc()+0.5)")))
            #expect(after >= 1698756586 && after < 1698756586 + 600, "\(after)")
            #expect(try await link.error(of: "frame.time.zone('0:00')") == nil)
            #expect(try await link.evaluate("frame.time.zone()") == "+00:00")
            #expect(try await link.evaluate("frame.time.date()['year']") == "2023")
            // The firmware test's date, 2 s after the epoch set above, given explicitly.
            let now = ["second": "46", "minute": "49", "hour": "12", "day": "31", "month": "10", "year": "2023",
                       "weekday": "2", "day of year": "303", "is daylight saving": "false"]
            for (key, value) in now {
                #expect(try await link.evaluate("frame.time.date(1698756586)['\(key)']") == value, "\(key)")
            }
            #expect(try await link.error(of: "frame.time.zone('2:30')") == nil)
            #expect(try await link.evaluate("frame.time.zone()") == "+02:30")
            #expect(try await link.evaluate("frame.time.date(1698756586)['minute']") == "19")
            #expect(try await link.evaluate("frame.time.date(1698756586)['hour']") == "15")
            #expect(try await link.error(of: "frame.time.zone('-3:45')") == nil)
            #expect(try await link.evaluate("frame.time.zone()") == "-03:45")
            #expect(try await link.error(of: "frame.time.zone('0:25')") == "minute value must be either 00, 30, or 45")
            #expect(try await link.error(of: "frame.time.zone('15:00')") == "hour value must be between -12 and +14")
            #expect(try await link.error(of: "frame.time.zone('-13:00')") == "hour value must be between -12 and +14")
            #expect(try await link.error(of: "frame.time.zone('noon')") == "must be '+hh:mm' or '-hh:mm'")
            #expect(try await link.error(of: "frame.time.zone('+01:00')") == nil)
            let stamp = ["second": "53", "minute": "48", "hour": "17", "day": "2", "month": "11", "year": "2023",
                         "weekday": "4", "day of year": "305", "is daylight saving": "false"]
            for (key, value) in stamp {
                #expect(try await link.evaluate("frame.time.date(1698943733)['\(key)']") == value, "\(key)")
            }
        }
    }

    @Test("system: battery, stay_awake, FPGA registers")
    func system() async throws {
        try await TestFrame.with { emulator, link async throws in
            #expect(try await link.evaluate("type(frame.battery_level())") == "number")
            #expect(try await link.evaluate("frame.stay_awake()") == "false")
            #expect(try await link.error(of: "frame.stay_awake(true)") == nil)
            #expect(try await link.error(of: "frame.sleep()") == nil)
            #expect(emulator.powerState == .running)
            #expect(try await link.evaluate("frame.stay_awake()") == "true")
            #expect(try await link.error(of: "frame.stay_awake(1, 2)") == "expected 0 or 1 arguments")
            #expect(try await link.error(of: "frame.stay_awake(false)") == nil)
            #expect(try await link.evaluate("string.byte(frame.fpga_read(0xDB, 1))") == "129")
            #expect(try await link.error(of: "frame.fpga_write(0xDC, 'test data')") == nil)
            #expect(try await link.error(of: "frame.fpga_read(0x100, 1)") == "address must be between 0x00 and 0xFF")
            #expect(try await link.error(of: "frame.led.set_color(100, 0, 0)") == nil)
            #expect(try await link.error(of: "frame.led.set_color(0, 50, 101)") == "led color must be between 0 and 100")
        }
    }

    @Test("file API: modes, lines, closed handles, listdir, rename, remove, mkdir")
    func files() async throws {
        try await TestFrame.with { emulator, link async throws in
            for statement in ["f=frame.file.open('test.lua', 'w')", "f:write('test 123')", "f:close()",
                              "f=frame.file.open('test.lua', 'a')", "f:write('\\n456')", "f:close()",
                              "f=frame.file.open('test.lua', 'r')"] {
                #expect(try await link.error(of: statement) == nil, "\(statement)")
            }
            #expect(try await link.error(of: "f:write('789')") == "file opened in read-only mode")
            #expect(try await link.evaluate("f:read()") == "test 123")
            #expect(try await link.evaluate("f:read()") == "456")
            #expect(try await link.evaluate("f:read()") == "nil")
            #expect(try await link.error(of: "f:close()") == nil)
            for statement in ["f=frame.file.open('test.lua', 'w')", "f:write('test 789')", "f:close()", "f=frame.file.open('test.lua', 'r')"] {
                #expect(try await link.error(of: statement) == nil, "\(statement)")
            }
            #expect(try await link.evaluate("f:read()") == "test 789")
            #expect(try await link.error(of: "f:close()") == nil)
            #expect(try await link.error(of: "f:read()") == "attempt to use a closed file")
            #expect(try await link.error(of: "f:write('000')") == "attempt to use a closed file")
            #expect(try await link.error(of: "f:close()") == "attempt to use a closed file")
            #expect(emulator.readFile("test.lua") == Data("test 789".utf8))

            #expect(try await link.evaluate("#frame.file.listdir('/')") == "3")
            #expect(try await link.evaluate("frame.file.listdir('/')[3]['name']") == "test.lua")
            #expect(try await link.evaluate("frame.file.listdir('/')[3]['size']") == "8")
            #expect(try await link.evaluate("frame.file.listdir('/')[3]['type']") == "1")
            #expect(try await link.error(of: "frame.file.rename('test.lua', 'test2.lua')") == nil)
            #expect(try await link.evaluate("frame.file.listdir('/')[3]['name']") == "test2.lua")
            #expect(try await link.error(of: "frame.file.remove('test2.lua')") == nil)
            #expect(try await link.evaluate("#frame.file.listdir('/')") == "2")
            #expect(try await link.error(of: "frame.file.open('missing.lua')") == "cannot open file missing.lua")
            #expect(try await link.error(of: "frame.file.open('x', 'q')") == "mode must be 'r', 'w', or 'a'")

            #expect(try await link.error(of: "frame.file.mkdir('/this/is/some/path')") == nil)
            #expect(try await link.evaluate("#frame.file.listdir('/')") == "3")
            #expect(try await link.evaluate("frame.file.listdir('/')[3]['name']") == "this")
            #expect(try await link.evaluate("frame.file.listdir('/')[3]['type']") == "2")
            #expect(try await link.error(of: "frame.file.listdir('/this')") == nil)
            #expect(try await link.error(of: "frame.file.listdir('/this/is')") == nil)
            #expect(try await link.error(of: "frame.file.listdir('/this/is/not')") == "directory not found")
            for path in ["/this/is/some/path", "/this/is/some", "/this/is", "/this"] {
                #expect(try await link.error(of: "frame.file.remove('\(path)')") == nil)
            }
            #expect(try await link.evaluate("#frame.file.listdir('/')") == "2")
            #expect(try await link.error(of: "frame.file.listdir('../')") == "directory not found")
        }
    }
}

/// frame.compression.
@Suite("Frame compression", .timeLimit(.minutes(10)))
struct CompressionTests {
    @Test("an LZ4 frame from the official lz4 package decompresses into the registered function",
          .enabled(if: FrameOracle.available, "needs SIBYL_FRAME_PYTHON (scripts/frame/setup.sh)"))
    func decompress() async throws {
        struct Frames: Decodable { let one: String }
        let frames = try await FrameOracle.run("""
            import json, sys, lz4.frame
            text = ("Sibyl on Frame " * 20)[:300]
            json.dump({"one": lz4.frame.compress(text.encode()).hex()}, open(sys.argv[2], "w"))
            """, input: [String](), as: Frames.self)
        // The file API reads lines, so the binary frame travels as hex.
        let load = """
            local f = frame.file.open('one.hex'); local parts = {}
            while true do local l = f:read(); if l == nil then break end; parts[#parts + 1] = l end
            f:close(); blob = (table.concat(parts):gsub('..', function(h) return string.char(tonumber(h, 16)) end))
            out = {}; frame.compression.process_function(function(b) out[#out + 1] = b end)
            """
        try await TestFrame.with(files: ["one.hex": frames.one, "load.lua": load]) { _, link async throws in
            #expect(try await link.error(of: "require('load')") == nil)
            #expect(try await link.evaluate("#blob") == "\(frames.one.count / 2)")
            #expect(try await link.error(of: "frame.compression.decompress(blob, 1024)") == nil)
            #expect(try await link.evaluate("#out .. ' ' .. out[1]:sub(1, 14)") == "1 Sibyl on Frame")
            #expect(try await link.evaluate("#out[1]") == "300")
            #expect(try await link.error(of: "frame.compression.decompress('nonsense', 1024)") == "decompression failed")
            #expect(try await link.error(of: "frame.compression.decompress(blob, 0)") == "bytes must be greater than 0")
        }
    }
}
