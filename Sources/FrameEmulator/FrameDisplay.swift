import Foundation

/// One entry of the display's 16-colour palette.
public struct FramePaletteEntry: Sendable, Equatable {
    /// The firmware's name for the entry (`"WHITE"`, `"SKYBLUE"` …).
    public var name: String
    /// The YCbCr value the FPGA holds: Y 0…15, Cb and Cr 0…7.
    public var y: Int
    public var cb: Int
    public var cr: Int
    /// The RGB colour last assigned with `assign_color`, when it was set that way.
    public var rgb: [Int]?

    /// The palette a Frame starts with.
    public static let defaults: [FramePaletteEntry] = [
        ("VOID", 0, 4, 4), ("WHITE", 15, 4, 4), ("GREY", 7, 4, 4), ("RED", 5, 3, 6),
        ("PINK", 9, 3, 5), ("DARKBROWN", 2, 2, 5), ("BROWN", 4, 2, 5), ("ORANGE", 9, 2, 5),
        ("YELLOW", 13, 2, 4), ("DARKGREEN", 4, 4, 3), ("GREEN", 6, 2, 3), ("LIGHTGREEN", 10, 1, 3),
        ("NIGHTBLUE", 1, 5, 2), ("SEABLUE", 4, 5, 2), ("SKYBLUE", 8, 5, 2), ("CLOUDBLUE", 13, 4, 3),
    ].map { FramePaletteEntry(name: $0.0, y: $0.1, cb: $0.2, cr: $0.3, rgb: nil) }
}

/// Something drawn into the display's back buffer.
public enum FrameDrawing: Sendable, Equatable {
    /// `frame.display.text`: 1-based position; `color` is the palette entry the glyphs use
    /// (`palette[1 + paletteOffset]`).
    case text(String, x: Int, y: Int, color: String, paletteOffset: Int, spacing: Int)
    /// `frame.display.bitmap`: packed pixels, MSB first, 1/2/4 bits per pixel for 2/4/16 colours.
    case bitmap(x: Int, y: Int, width: Int, totalColors: Int, paletteOffset: Int, pixels: Data)
}

/// What one `frame.display.show()` put on screen.
public struct FrameDisplayFrame: Sendable, Equatable {
    /// The drawings, in the order they were made.
    public var drawings: [FrameDrawing]
    /// The palette when it was shown.
    public var palette: [FramePaletteEntry]

    /// The strings drawn, in order.
    public var texts: [String] {
        drawings.compactMap { if case .text(let string, _, _, _, _, _) = $0 { string } else { nil } }
    }
}

/// The display as the emulator saw it: palette, back buffer, shown frames and settings.
public struct FrameDisplayState: Sendable, Equatable {
    /// The current palette (16 entries).
    public var palette = FramePaletteEntry.defaults
    /// Drawn since the last `show()` (the back buffer).
    public var pending: [FrameDrawing] = []
    /// Every frame shown since power-on, oldest first.
    public var frames: [FrameDisplayFrame] = []
    /// `power_save(true)` is in effect.
    public var isPowerSaving = false
    /// The last `set_brightness` level (−2…2).
    public var brightness = 0
    /// Values written with `write_register`, by address.
    public var registers: [Int: Int] = [:]

    /// The frame on screen now, if any was shown.
    public var current: FrameDisplayFrame? { frames.last }
}
