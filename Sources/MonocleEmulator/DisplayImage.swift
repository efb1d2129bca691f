import Foundation

/// The glasses' 640×400 display as pixels: what a `DisplayFrame` looks like.
///
/// Shapes are drawn first, in the order shown, and text over them (the FPGA keeps text on a layer
/// of its own). Rectangles and polygons are filled, lines and polylines drawn `thickness` pixels
/// wide. Text sits in cells of 24×48 pixels (`display.FONT_WIDTH` × `FONT_HEIGHT`), its glyphs
/// from a bitmap font scaled ×3 (a wide glyph is narrowed to the cell); without a font each
/// character is a filled box. Everything is clipped at the screen's edges, as on the device.
public struct DisplayImage: Sendable, Hashable {
    public static let width = 640
    public static let height = 400
    /// The text cell (`display.FONT_WIDTH`, `display.FONT_HEIGHT`).
    public static let cellWidth = 24
    public static let cellHeight = 48

    public let width: Int
    public let height: Int
    /// 0xRRGGBB per pixel, row by row.
    public private(set) var pixels: [UInt32]

    /// A black screen.
    public init(width: Int = DisplayImage.width, height: Int = DisplayImage.height) {
        self.width = width
        self.height = height
        pixels = Array(repeating: 0, count: width * height)
    }

    /// Draws a frame; `font` nil draws text as boxes.
    public init(_ frame: DisplayFrame, font: GlyphFont? = GlyphFont.unifont) {
        self.init()
        for object in frame.objects where object.type != "Text" {
            draw(shape: object)
        }
        for object in frame.objects where object.type == "Text" {
            draw(text: object, font: font)
        }
    }

    /// The colour at (x, y), 0xRRGGBB.
    public func pixel(x: Int, y: Int) -> UInt32 {
        pixels[y * width + x]
    }

    /// The image as a PNG file.
    public func png() -> Data {
        var rgb = [UInt8]()
        rgb.reserveCapacity(pixels.count * 3)
        for pixel in pixels {
            rgb.append(UInt8((pixel >> 16) & 0xFF))
            rgb.append(UInt8((pixel >> 8) & 0xFF))
            rgb.append(UInt8(pixel & 0xFF))
        }
        return PNGEncoder.png(width: width, height: height, rgb: rgb)
    }

    // MARK: Drawing lists of other glasses (Frame)

    /// Draws text with its top-left at (x, y): each glyph in its own width, every font pixel a
    /// `scale`×`scale` block, `spacing` pixels between glyphs (Frame's proportional text); without
    /// a font, a box per character.
    public mutating func drawText(_ text: String, x: Int, y: Int, color: UInt32, font: GlyphFont?, scale: Int = 2, spacing: Int = 4) {
        var left = x
        let height = 16 * scale
        for scalar in text.unicodeScalars {
            let glyph = font?.glyph(for: scalar)
            let glyphWidth = (glyph?.width ?? 8) * scale
            defer { left += glyphWidth + spacing }
            guard left < width else { break }
            if scalar.properties.isWhitespace { continue }
            guard let glyph else {
                fill(x: left + scale, y: y + 2 * scale, width: glyphWidth - 2 * scale, height: height - 4 * scale, color)
                continue
            }
            for row in 0..<16 {
                for column in 0..<glyph.width where glyph.isSet(x: column, y: row) {
                    fill(x: left + column * scale, y: y + row * scale, width: scale, height: scale, color)
                }
            }
        }
    }

    /// Draws packed pixels with their top-left at (x, y), `width` to a row: `bitsPerPixel` (1, 2 or
    /// 4) bits each, the leftmost in the most significant bits; `color` gives each value's colour,
    /// nil for a transparent one.
    public mutating func drawPackedPixels(_ data: Data, x: Int, y: Int, width rowWidth: Int, bitsPerPixel: Int, color: (Int) -> UInt32?) {
        guard [1, 2, 4].contains(bitsPerPixel), rowWidth > 0 else { return }
        let perByte = 8 / bitsPerPixel
        let mask = (1 << bitsPerPixel) - 1
        var index = 0
        for byte in data {
            for slot in 0..<perByte {
                let value = Int(byte) >> (8 - bitsPerPixel * (slot + 1)) & mask
                if let colour = color(value) { set(x + index % rowWidth, y + index / rowWidth, colour) }
                index += 1
            }
        }
    }

    // MARK: Drawing

    private mutating func set(_ x: Int, _ y: Int, _ color: UInt32) {
        guard x >= 0, y >= 0, x < width, y < height else { return }
        pixels[y * width + x] = color
    }

    private mutating func fill(x: Int, y: Int, width w: Int, height h: Int, _ color: UInt32) {
        let left = max(0, x), right = min(width, x + w)
        let top = max(0, y), bottom = min(height, y + h)
        guard left < right, top < bottom else { return }
        for row in top..<bottom {
            for column in left..<right { pixels[row * width + column] = color }
        }
    }

    private mutating func draw(shape object: DisplayFrame.Object) {
        let color = UInt32(truncatingIfNeeded: object.color ?? 0xFFFFFF) & 0xFF_FFFF
        let thickness = max(1, object.thickness ?? 1)
        switch object.type {
        case "Rectangle", "Fill":
            guard let x1 = object.x, let y1 = object.y, let x2 = object.x2, let y2 = object.y2 else { return }
            fill(x: min(x1, x2), y: min(y1, y2), width: abs(x2 - x1) + 1, height: abs(y2 - y1) + 1, color)
        case "Line", "HLine", "VLine":
            guard let x1 = object.x, let y1 = object.y, let x2 = object.x2, let y2 = object.y2 else { return }
            line(from: (x1, y1), to: (x2, y2), thickness: thickness, color)
        case "Polyline":
            let points = corners(object)
            for (a, b) in zip(points, points.dropFirst()) { line(from: a, to: b, thickness: thickness, color) }
        case "Polygon":
            polygon(corners(object), color)
        default:
            break
        }
    }

    private func corners(_ object: DisplayFrame.Object) -> [(Int, Int)] {
        (object.points ?? []).compactMap { $0.count >= 2 ? ($0[0], $0[1]) : nil }
    }

    /// Bresenham's line, each point a square `thickness` pixels wide.
    private mutating func line(from start: (Int, Int), to end: (Int, Int), thickness: Int, _ color: UInt32) {
        var (x, y) = start
        let dx = abs(end.0 - x), dy = -abs(end.1 - y)
        let sx = x < end.0 ? 1 : -1, sy = y < end.1 ? 1 : -1
        var error = dx + dy
        let offset = (thickness - 1) / 2
        while true {
            if thickness == 1 { set(x, y, color) } else { fill(x: x - offset, y: y - offset, width: thickness, height: thickness, color) }
            if x == end.0 && y == end.1 { break }
            let doubled = 2 * error
            if doubled >= dy { error += dy; x += sx }
            if doubled <= dx { error += dx; y += sy }
        }
    }

    /// A filled polygon (even-odd rule), sampled at pixel centres, with its outline.
    private mutating func polygon(_ points: [(Int, Int)], _ color: UInt32) {
        guard points.count >= 3 else {
            for (a, b) in zip(points, points.dropFirst()) { line(from: a, to: b, thickness: 1, color) }
            return
        }
        let top = max(0, points.map(\.1).min()!), bottom = min(height - 1, points.map(\.1).max()!)
        guard top <= bottom else { return }
        for row in top...bottom {
            let centre = Double(row) + 0.5
            var crossings: [Double] = []
            for (a, b) in zip(points, points.dropFirst() + [points[0]]) {
                let (y1, y2) = (Double(a.1), Double(b.1))
                guard (y1 <= centre && centre < y2) || (y2 <= centre && centre < y1) else { continue }
                crossings.append(Double(a.0) + (centre - y1) / (y2 - y1) * Double(b.0 - a.0))
            }
            crossings.sort()
            for pair in stride(from: 0, to: crossings.count - 1, by: 2) {
                let left = Int(crossings[pair].rounded()), right = Int(crossings[pair + 1].rounded())
                fill(x: left, y: row, width: right - left + 1, height: 1, color)
            }
        }
        for (a, b) in zip(points, points.dropFirst() + [points[0]]) { line(from: a, to: b, thickness: 1, color) }
    }

    private mutating func draw(text object: DisplayFrame.Object, font: GlyphFont?) {
        guard let text = object.text, let x = object.x, let y = object.y else { return }
        let color = UInt32(truncatingIfNeeded: object.color ?? 0xFFFFFF) & 0xFF_FFFF
        for (index, scalar) in text.unicodeScalars.enumerated() {
            let left = x + index * Self.cellWidth
            guard left < width, left + Self.cellWidth > 0 else { continue }
            if scalar.properties.isWhitespace { continue }
            guard let font, let glyph = font.glyph(for: scalar) else {
                // No font, or no glyph: a box where the character is.
                fill(x: left + 2, y: y + 6, width: Self.cellWidth - 4, height: Self.cellHeight - 12, color)
                continue
            }
            // Each glyph pixel becomes a block of the cell: 8×16 → 24×48 (×3), 16×16 → 24×48 (×1.5, ×3).
            for row in 0..<Self.cellHeight {
                let glyphRow = row * font.height / Self.cellHeight
                for column in 0..<Self.cellWidth where glyph.isSet(x: column * glyph.width / Self.cellWidth, y: glyphRow) {
                    set(left + column, y + row, color)
                }
            }
        }
    }
}
