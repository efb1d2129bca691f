import Foundation

/// Writes 8-bit RGB images as PNG files: the IHDR, IDAT and IEND chunks, each with its CRC-32,
/// and the pixels as a zlib stream of one deflate block with the fixed Huffman codes.
///
/// The compressor only looks for repeats of the previous pixel and of the row above, which is
/// what a display of text and shapes on black is made of; a 640×400 screen comes out at a few KB.
public enum PNGEncoder {
    /// PNG data for `width`×`height` pixels given as RGB bytes, row by row.
    public static func png(width: Int, height: Int, rgb: [UInt8]) -> Data {
        precondition(width > 0 && height > 0 && rgb.count == width * height * 3, "RGB bytes must be width × height × 3")
        var file = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var header = [UInt8]()
        header += bigEndian(UInt32(width))
        header += bigEndian(UInt32(height))
        header += [8, 2, 0, 0, 0] // bit depth 8, colour type 2 (RGB), deflate, adaptive filters, no interlace
        file += chunk("IHDR", header)
        // Each row starts with its filter type: 0, none.
        let stride = width * 3
        var raw = [UInt8]()
        raw.reserveCapacity((stride + 1) * height)
        for row in 0..<height {
            raw.append(0)
            raw += rgb[(row * stride)..<((row + 1) * stride)]
        }
        file += chunk("IDAT", zlib(raw, rowLength: stride + 1))
        file += chunk("IEND", [])
        return file
    }

    /// A zlib stream (RFC 1950) holding one fixed-Huffman deflate block (RFC 1951).
    static func zlib(_ bytes: [UInt8], rowLength: Int) -> [UInt8] {
        var out = BitWriter()
        out.bytes = [0x78, 0x01] // deflate, 32 KB window, no dictionary, fastest; (0x7801 % 31 == 0)
        out.write(1, bits: 1) // the final block
        out.write(1, bits: 2) // fixed Huffman codes
        var index = 0
        while index < bytes.count {
            var best = (length: 0, distance: 0)
            for distance in [3, rowLength] where distance <= index {
                var length = 0
                while length < 258, index + length < bytes.count, bytes[index + length] == bytes[index + length - distance] {
                    length += 1
                }
                if length > best.length { best = (length, distance) }
            }
            if best.length >= 3 {
                out.writeLength(best.length)
                out.writeDistance(best.distance)
                index += best.length
            } else {
                out.writeLiteral(Int(bytes[index]))
                index += 1
            }
        }
        out.writeLiteral(256) // end of block
        out.flush()
        return out.bytes + bigEndian(adler32(bytes))
    }

    static func chunk(_ type: String, _ data: [UInt8]) -> Data {
        let typed = Array(type.utf8) + data
        return Data(bigEndian(UInt32(data.count)) + typed + bigEndian(crc32(typed)))
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 PNG chunks end with (ISO 3309, reflected polynomial 0xEDB88320).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes { crc = crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        return crc ^ 0xFFFF_FFFF
    }

    /// The checksum that ends a zlib stream.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for chunk in stride(from: 0, to: bytes.count, by: 5_552) {
            for byte in bytes[chunk..<min(chunk + 5_552, bytes.count)] {
                a += UInt32(byte)
                b += a
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }
}

/// Deflate's bit order: values least significant bit first, Huffman codes most significant first.
private struct BitWriter {
    var bytes: [UInt8] = []
    private var buffer: UInt32 = 0
    private var count = 0

    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1_025, 1_537,
                                        2_049, 3_073, 4_097, 6_145, 8_193, 12_289, 16_385, 24_577]
    private static let distanceExtra = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    mutating func write(_ value: Int, bits: Int) {
        buffer |= UInt32(value) << UInt32(count)
        count += bits
        while count >= 8 {
            bytes.append(UInt8(buffer & 0xFF))
            buffer >>= 8
            count -= 8
        }
    }

    /// A Huffman code, most significant bit first.
    mutating func writeCode(_ code: Int, bits: Int) {
        var reversed = 0
        for bit in 0..<bits where code & (1 << bit) != 0 { reversed |= 1 << (bits - 1 - bit) }
        write(reversed, bits: bits)
    }

    /// A literal byte or end-of-block (256), or a length symbol (257…285), in the fixed code.
    mutating func writeLiteral(_ symbol: Int) {
        switch symbol {
        case 0...143: writeCode(0x30 + symbol, bits: 8)
        case 144...255: writeCode(0x190 + symbol - 144, bits: 9)
        case 256...279: writeCode(symbol - 256, bits: 7)
        default: writeCode(0xC0 + symbol - 280, bits: 8)
        }
    }

    mutating func writeLength(_ length: Int) {
        let code = Self.lengthBases.lastIndex { $0 <= length }!
        writeLiteral(257 + code)
        write(length - Self.lengthBases[code], bits: Self.lengthExtra[code])
    }

    mutating func writeDistance(_ distance: Int) {
        let code = Self.distanceBases.lastIndex { $0 <= distance }!
        writeCode(code, bits: 5)
        write(distance - Self.distanceBases[code], bits: Self.distanceExtra[code])
    }

    mutating func flush() {
        if count > 0 { bytes.append(UInt8(buffer & 0xFF)) }
        buffer = 0
        count = 0
    }
}
