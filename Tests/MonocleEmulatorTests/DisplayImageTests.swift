import Foundation
import Monocle
import MonocleEmulator
import Testing

/// The virtual display drawn as pixels, and written as PNG.
@Suite(.timeLimit(.minutes(10)))
struct DisplayImageTests {
    static let green = 0x1D6914
    static let red = 0xAD2323
    static let blue = 0x2A4BD7

    /// A font of two glyphs: "A" a full 8×16 block, "世" a wide glyph with only its left half set.
    static let font = GlyphFont(hex: "0041:" + String(repeating: "FF", count: 16) + "\n4E16:" + String(repeating: "FF00", count: 16) + "\n")

    /// Decodes a PNG with Python's zlib (an independent implementation): checks every chunk's CRC
    /// and returns the size and the RGB bytes (filter type 0 rows).
    static func decode(_ png: Data) throws -> (width: Int, height: Int, rgb: [UInt8]) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sibyl-png-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("in.png"), output = directory.appendingPathComponent("out.rgb")
        try png.write(to: input)
        let script = """
        import struct, sys, zlib
        d = open(sys.argv[1], 'rb').read()
        assert d[:8] == b'\\x89PNG\\r\\n\\x1a\\n', 'signature'
        i, idat, size = 8, b'', None
        while i < len(d):
            n, = struct.unpack('>I', d[i:i+4]); kind = d[i+4:i+8]; body = d[i+8:i+8+n]
            assert struct.unpack('>I', d[i+8+n:i+12+n])[0] == zlib.crc32(kind + body), 'crc of ' + kind.decode()
            if kind == b'IHDR': size = struct.unpack('>II', body[:8]); assert body[8:] == bytes([8, 2, 0, 0, 0])
            if kind == b'IDAT': idat += body
            i += 12 + n
        assert kind == b'IEND'
        raw = zlib.decompress(idat)
        w, h = size; out = b''
        for r in range(h):
            row = raw[r * (3 * w + 1):(r + 1) * (3 * w + 1)]; assert row[0] == 0; out += row[1:]
        open(sys.argv[2], 'wb').write(out); print(w, h)
        """
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        python.arguments = ["-c", script, input.path, output.path]
        let pipe = Pipe()
        python.standardOutput = pipe
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        let size = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return (size.first ?? 0, size.last ?? 0, [UInt8](try Data(contentsOf: output)))
    }

    @Test func textSitsInItsCellsInItsColourAndShapesBeneathIt() {
        let frame = DisplayFrame(time: .zero, objects: [
            .init(type: "Rectangle", x: 100, y: 200, color: Self.blue, x2: 199, y2: 259),
            .init(type: "Text", text: "A A", x: 24, y: 48, color: Self.green, justify: 1),
            .init(type: "Line", x: 0, y: 399, color: Self.red, x2: 639, y2: 399, thickness: 1),
            .init(type: "Polygon", color: Self.red, points: [[300, 10], [400, 10], [350, 110]]),
            .init(type: "Text", text: "世", x: 96, y: 300, color: Self.green, justify: 1),
        ])
        let image = DisplayImage(frame, font: Self.font)
        #expect(image.width == 640 && image.height == 400)
        // "A" fills its 24×48 cell; the space after it stays black; the second "A" is two cells on.
        #expect(image.pixel(x: 24, y: 48) == UInt32(Self.green))
        #expect(image.pixel(x: 47, y: 95) == UInt32(Self.green))
        #expect(image.pixel(x: 48, y: 60) == 0)
        #expect(image.pixel(x: 72, y: 60) == UInt32(Self.green))
        #expect(image.pixel(x: 23, y: 60) == 0)
        #expect(image.pixel(x: 30, y: 96) == 0)
        // The rectangle, filled; a line along the bottom row; the polygon filled inside, not outside.
        #expect(image.pixel(x: 150, y: 230) == UInt32(Self.blue))
        #expect(image.pixel(x: 200, y: 230) == 0)
        #expect(image.pixel(x: 320, y: 399) == UInt32(Self.red))
        #expect(image.pixel(x: 350, y: 40) == UInt32(Self.red))
        #expect(image.pixel(x: 310, y: 100) == 0)
        // A wide glyph is narrowed into its one cell: its left half set becomes the cell's left half.
        #expect(image.pixel(x: 96, y: 320) == UInt32(Self.green))
        #expect(image.pixel(x: 119, y: 320) == 0)
    }

    @Test func textRunsOffTheEdgesAndWithoutAFontCharactersAreBoxes() {
        let frame = DisplayFrame(time: .zero, objects: [
            .init(type: "Text", text: "ABCDEFGHIJ", x: 600, y: 380, color: Self.red, justify: 1),
            .init(type: "Text", text: "A B", x: -12, y: 0, color: Self.green, justify: 1),
        ])
        let boxes = DisplayImage(frame, font: nil)
        #expect(boxes.pixel(x: 612, y: 390) == UInt32(Self.red))
        #expect(boxes.pixel(x: 623, y: 390) == 0) // the margin between two boxes
        #expect(boxes.pixel(x: 630, y: 390) == UInt32(Self.red)) // the second box, cut at the edge
        #expect(boxes.pixel(x: 5, y: 24) == UInt32(Self.green))
        #expect(boxes.pixel(x: 24, y: 24) == 0) // the space
    }

    @Test func thePNGHoldsExactlyThePixels() throws {
        let frame = DisplayFrame(time: .zero, objects: [
            .init(type: "Rectangle", x: 10, y: 10, color: Self.blue, x2: 630, y2: 390),
            .init(type: "Polyline", color: 0xFFEE33, thickness: 3, points: [[0, 0], [639, 399], [0, 399]]),
            .init(type: "Text", text: "AAAA", x: 200, y: 170, color: Self.green, justify: 1),
        ])
        let image = DisplayImage(frame, font: Self.font)
        let png = image.png()
        #expect(png.count < 50_000, "repeats are compressed: \(png.count) bytes")
        let decoded = try Self.decode(png)
        #expect(decoded.width == 640 && decoded.height == 400)
        let expected = image.pixels.flatMap { [UInt8($0 >> 16), UInt8(($0 >> 8) & 0xFF), UInt8($0 & 0xFF)] }
        #expect(decoded.rgb == expected)
    }

    @Test func unifontReadsFromItsHexFile() throws {
        guard let unifont = GlyphFont.unifont else {
            Issue.record("\(GlyphFont.unifontPath.path) is missing: install the unifont package (scripts/common.sh lists it)")
            return
        }
        #expect(unifont.glyph(for: "A")?.width == 8)
        #expect(unifont.glyph(for: "世")?.width == 16)
        #expect(unifont.glyph(for: "A")?.rows.contains { $0 != 0 } == true)
    }

    @Test(.enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
    func whatTheAppShowsIsWhatThePictureShows() async throws {
        let main = """
        import display
        display.show(display.Rectangle(0, 300, 639, 399, display.BLUE), display.Text("Hi", 320, 0, display.GREEN, justify=display.TOP_RIGHT))

        """
        try await TestGlasses.with(files: ["main.py": main]) { glasses in
            let frame = try await glasses.waitForScreen { !$0.objects.isEmpty }
            let image = DisplayImage(frame, font: Self.font)
            #expect(image.pixel(x: 5, y: 350) == UInt32(Self.blue))
            // Right-justified at 320: "Hi" covers 272…319; "H" has no glyph in the test font, so a box.
            #expect(image.pixel(x: 284, y: 24) == UInt32(Self.green))
            #expect(image.pixel(x: 330, y: 24) == 0)
        }
    }
}
