import Foundation

// The message bodies frame-msg 5.2.1's device-side Lua parsers read (plain_text.lua, code.lua,
// camera.lua, sprite.lua, sprite_coords.lua). Multi-byte fields are big-endian.

extension Data {
    fileprivate mutating func appendBigEndian(_ value: UInt16) {
        append(UInt8(value >> 8))
        append(UInt8(value & 0xFF))
    }
}

/// Text for `frame.display.text`, at 1-based pixel coordinates, in a palette colour.
public struct FramePlainText: FrameMessageContent, Hashable {
    public var text: String
    public var x: UInt16
    public var y: UInt16
    /// The palette entry (1–15; 0 is VOID, the background). Only the low four bits are sent.
    public var paletteOffset: UInt8
    public var spacing: UInt8

    public init(_ text: String, x: UInt16 = 1, y: UInt16 = 1, paletteOffset: UInt8 = 1, spacing: UInt8 = 4) {
        self.text = text
        self.x = x
        self.y = y
        self.paletteOffset = paletteOffset
        self.spacing = spacing
    }

    public func packed() -> Data {
        var data = Data()
        data.appendBigEndian(x)
        data.appendBigEndian(y)
        data.append(paletteOffset & 0x0F)
        data.append(spacing)
        data.append(contentsOf: text.utf8)
        return data
    }
}

/// A one-byte value that tells a device app to act.
public struct FrameCode: FrameMessageContent, Hashable {
    public var value: UInt8

    public init(_ value: UInt8 = 0) {
        self.value = value
    }

    public func packed() -> Data { Data([value]) }
}

/// The JPEG quality names the camera takes, in frame-msg's index order.
public enum FrameCameraQuality: Int, Sendable, CaseIterable {
    case veryLow, low, medium, high, veryHigh

    /// The name `frame.camera.capture{quality=…}` takes.
    public var luaName: String {
        switch self {
        case .veryLow: "VERY_LOW"
        case .low: "LOW"
        case .medium: "MEDIUM"
        case .high: "HIGH"
        case .veryHigh: "VERY_HIGH"
        }
    }
}

/// What camera.lua's `capture_and_send` takes a photo with.
public struct FrameCaptureSettings: FrameMessageContent, Hashable {
    /// Square side in pixels, even, 100–720.
    public var resolution: Int
    public var quality: FrameCameraQuality
    /// Horizontal pan, −140…140.
    public var pan: Int
    /// Leave out the JPEG header (the host keeps one from an earlier photo of the same quality and size).
    public var raw: Bool

    public init(resolution: Int = 512, quality: FrameCameraQuality = .veryHigh, pan: Int = 0, raw: Bool = false) {
        self.resolution = resolution
        self.quality = quality
        self.pan = pan
        self.raw = raw
    }

    public func packed() -> Data {
        var data = Data([UInt8(quality.rawValue)])
        data.appendBigEndian(UInt16(truncatingIfNeeded: resolution / 2))
        data.appendBigEndian(UInt16(truncatingIfNeeded: pan + 140))
        data.append(raw ? 1 : 0)
        return data
    }
}

/// Automatic exposure and white balance settings (camera.lua's `parse_auto_exp_settings`).
public struct FrameAutoExposureSettings: FrameMessageContent, Hashable {
    public enum Metering: Int, Sendable { case spot, centerWeighted, average }
    public var metering: Metering
    /// Fractions 0…1, sent as a byte (× 255, truncated).
    public var exposure: Double
    public var exposureSpeed: Double
    public var shutterLimit: Int
    public var analogGainLimit: Int
    public var whiteBalanceSpeed: Double
    public var rgbGainLimit: Int

    public init(
        metering: Metering = .centerWeighted, exposure: Double = 0.1, exposureSpeed: Double = 0.45, shutterLimit: Int = 16383,
        analogGainLimit: Int = 16, whiteBalanceSpeed: Double = 0.5, rgbGainLimit: Int = 287
    ) {
        self.metering = metering
        self.exposure = exposure
        self.exposureSpeed = exposureSpeed
        self.shutterLimit = shutterLimit
        self.analogGainLimit = analogGainLimit
        self.whiteBalanceSpeed = whiteBalanceSpeed
        self.rgbGainLimit = rgbGainLimit
    }

    public func packed() -> Data {
        func fraction(_ value: Double) -> UInt8 { UInt8(truncatingIfNeeded: Int(value * 255)) }
        var data = Data([UInt8(metering.rawValue), fraction(exposure), fraction(exposureSpeed)])
        data.appendBigEndian(UInt16(truncatingIfNeeded: shutterLimit & 0x3FFF))
        data.append(UInt8(truncatingIfNeeded: analogGainLimit))
        data.append(fraction(whiteBalanceSpeed))
        data.appendBigEndian(UInt16(truncatingIfNeeded: rgbGainLimit & 0x3FF))
        return data
    }
}

/// Fixed exposure and gains (camera.lua's `parse_manual_exp_settings`).
public struct FrameManualExposureSettings: FrameMessageContent, Hashable {
    public var shutter: Int
    public var analogGain: Int
    public var redGain: Int
    public var greenGain: Int
    public var blueGain: Int

    public init(shutter: Int = 3072, analogGain: Int = 16, redGain: Int = 121, greenGain: Int = 64, blueGain: Int = 140) {
        self.shutter = shutter
        self.analogGain = analogGain
        self.redGain = redGain
        self.greenGain = greenGain
        self.blueGain = blueGain
    }

    public func packed() -> Data {
        var data = Data()
        data.appendBigEndian(UInt16(truncatingIfNeeded: shutter & 0x3FFF))
        data.append(UInt8(truncatingIfNeeded: analogGain))
        for gain in [redGain, greenGain, blueGain] {
            data.appendBigEndian(UInt16(truncatingIfNeeded: gain & 0x3FF))
        }
        return data
    }
}

/// Where to draw a sprite the app holds (sprite_coords.lua).
public struct FrameSpriteCoordinates: FrameMessageContent, Hashable {
    public var code: UInt8
    public var x: UInt16
    public var y: UInt16
    public var paletteOffset: UInt8

    public init(code: UInt8, x: UInt16, y: UInt16, paletteOffset: UInt8 = 0) {
        self.code = code
        self.x = x
        self.y = y
        self.paletteOffset = paletteOffset
    }

    public func packed() -> Data {
        var data = Data([code])
        data.appendBigEndian(x)
        data.appendBigEndian(y)
        data.append(paletteOffset)
        return data
    }
}

/// An indexed-colour bitmap for `frame.display.bitmap` (sprite.lua), uncompressed.
///
/// Pixels are palette indices, one per pixel, packed most significant bits first at 1, 2 or 4 bits
/// per pixel (2, 4 or 16 colours); the palette is RGB triples.
public struct FrameSprite: FrameMessageContent, Hashable {
    public var width: UInt16
    public var height: UInt16
    /// RGB, three bytes per colour; at most 16 colours.
    public var palette: [UInt8]
    /// One palette index per pixel, row by row.
    public var pixels: [UInt8]

    public init(width: UInt16, height: UInt16, palette: [UInt8], pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.palette = palette
        self.pixels = pixels
    }

    public var colourCount: Int { palette.count / 3 }

    public var bitsPerPixel: Int {
        switch colourCount {
        case ...2: 1
        case ...4: 2
        default: 4
        }
    }

    public func packed() -> Data {
        var data = Data()
        data.appendBigEndian(width)
        data.appendBigEndian(height)
        data.append(0)  // not compressed
        data.append(UInt8(bitsPerPixel))
        data.append(UInt8(colourCount))
        data.append(contentsOf: palette)
        let bits = bitsPerPixel
        let perByte = 8 / bits
        var byte: UInt8 = 0
        for (index, pixel) in pixels.enumerated() {
            // At 1 bit per pixel any non-zero index is a set bit, as frame-msg packs it.
            let value = bits == 1 ? (pixel == 0 ? 0 : 1) : pixel & UInt8((1 << bits) - 1)
            let slot = index % perByte
            byte |= value << UInt8(8 - bits * (slot + 1))
            if slot == perByte - 1 {
                data.append(byte)
                byte = 0
            }
        }
        if pixels.count % perByte != 0 { data.append(byte) }
        return data
    }
}
