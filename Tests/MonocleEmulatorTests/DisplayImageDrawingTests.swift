import Foundation
import MonocleEmulator
import Testing

/// The drawing list other glasses (Frame) map to: proportional text and packed palette pixels.
@Suite(.timeLimit(.minutes(10)))
struct DisplayImageDrawingTests {
    @Test func textIsDrawnInTheGlyphsOwnWidthsScaledAndSpaced() throws {
        var image = DisplayImage()
        // "A" is a full 8×16 block: at scale 2 a 16×32 block; the second "A" starts 16 + 4 further on.
        image.drawText("AA", x: 10, y: 20, color: 0x00FF00, font: DisplayImageTests.font, scale: 2, spacing: 4)
        #expect(image.pixel(x: 10, y: 20) == 0x00FF00)
        #expect(image.pixel(x: 25, y: 51) == 0x00FF00)
        #expect(image.pixel(x: 26, y: 30) == 0, "the gap between the glyphs")
        #expect(image.pixel(x: 29, y: 30) == 0, "the gap between the glyphs")
        #expect(image.pixel(x: 30, y: 30) == 0x00FF00)
        #expect(image.pixel(x: 10, y: 52) == 0, "below the glyph")
        // The wide glyph's left half only.
        var wide = DisplayImage()
        wide.drawText("世", x: 0, y: 0, color: 0xFFFFFF, font: DisplayImageTests.font, scale: 1, spacing: 0)
        #expect(wide.pixel(x: 7, y: 0) == 0xFFFFFF)
        #expect(wide.pixel(x: 8, y: 0) == 0)
    }

    @Test func packedPixelsAreReadMostSignificantFirstWithZeroTransparent() throws {
        var image = DisplayImage()
        let colours: [UInt32] = [0, 0xFF0000, 0x00FF00, 0x0000FF]
        // 2 bits a pixel, 4 to a row: 0b00_01_10_11 then 0b11_10_01_00.
        image.drawPackedPixels(Data([0x1B, 0xE4]), x: 5, y: 7, width: 4, bitsPerPixel: 2) { $0 == 0 ? nil : colours[$0] }
        #expect((0..<4).map { image.pixel(x: 5 + $0, y: 7) } == [0, 0xFF0000, 0x00FF00, 0x0000FF])
        #expect((0..<4).map { image.pixel(x: 5 + $0, y: 8) } == [0x0000FF, 0x00FF00, 0xFF0000, 0])
        // 1 bit a pixel: a row of 8 from one byte; 4 bits: two pixels a byte.
        var mono = DisplayImage()
        mono.drawPackedPixels(Data([0x81]), x: 0, y: 0, width: 8, bitsPerPixel: 1) { $0 == 1 ? 0xFFFFFF : nil }
        #expect((0..<8).map { mono.pixel(x: $0, y: 0) } == [0xFFFFFF, 0, 0, 0, 0, 0, 0, 0xFFFFFF])
        var sixteen = DisplayImage()
        sixteen.drawPackedPixels(Data([0xF1]), x: 0, y: 0, width: 2, bitsPerPixel: 4) { UInt32($0) }
        #expect(sixteen.pixel(x: 0, y: 0) == 15 && sixteen.pixel(x: 1, y: 0) == 1)
        // Pixels past the screen's edge are clipped, not wrapped.
        var edge = DisplayImage()
        edge.drawPackedPixels(Data([0xFF]), x: 636, y: 399, width: 8, bitsPerPixel: 1) { _ in 0xFFFFFF }
        #expect(edge.pixel(x: 639, y: 399) == 0xFFFFFF)
        #expect(edge.pixel(x: 0, y: 0) == 0)
    }
}
