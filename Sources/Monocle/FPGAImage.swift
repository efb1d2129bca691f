public import Foundation

/// An FPGA bitstream to write, and the REPL commands that write it.
public struct FPGAImage: Sendable, Hashable {
    public var data: Data
    /// The version the image reports once written (`fpga.read(2,12)`).
    public var version: String

    public init(data: Data, version: String) {
        self.data = data
        self.version = version
    }

    /// Stops the FPGA and erases its flash area.
    public static let eraseCommand = "import ubinascii,update,device,bluetooth,fpga;fpga.run(False);update.Fpga.erase()"
    /// Marks the image complete and restarts the glasses, which then boot the new image.
    public static let finishCommand = "update.Fpga.write(b'done');device.reset()"

    /// Base64 characters per chunk, so that each write command fits one write of `maximumWriteLength`
    /// bytes: the wrapper and ^D take 45 bytes, and whole 4-character groups of 3 bytes are kept.
    public static func chunkLength(maximumWriteLength: Int) -> Int {
        max(((maximumWriteLength - 45) / 3) / 4 * 4 * 3, 4)
    }

    /// The base64 chunks of the image.
    public func chunks(maximumWriteLength: Int) -> [Substring] {
        let encoded = data.base64EncodedString()
        let size = Self.chunkLength(maximumWriteLength: maximumWriteLength)
        var chunks: [Substring] = []
        var start = encoded.startIndex
        while start < encoded.endIndex {
            let end = encoded.index(start, offsetBy: size, limitedBy: encoded.endIndex) ?? encoded.endIndex
            chunks.append(encoded[start..<end])
            start = end
        }
        return chunks
    }

    /// The command that writes one chunk.
    public static func writeCommand(_ chunk: Substring) -> String {
        "update.Fpga.write(ubinascii.a2b_base64(b'\(chunk)'))"
    }
}
