import Foundation
import Monocle
import Testing

@Suite(.timeLimit(.minutes(10))) struct RawREPLTests {
    func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func repliesAreFoundOnlyWhenComplete() {
        #expect(RawREPL.reply(in: bytes("OKv23.248.0754\r\n\u{4}")) == nil)
        #expect(RawREPL.reply(in: bytes("OKv23.248.0754\r\n\u{4}\u{4}")) == nil)
        let reply = RawREPL.reply(in: bytes("OKv23.248.0754\r\n\u{4}\u{4}>"))
        #expect(reply?.output == "v23.248.0754\n")
        #expect(reply?.succeeded == true)
    }

    @Test func errorsKeepTheTraceback() {
        let reply = RawREPL.reply(in: bytes("OK\u{4}Traceback (most recent call last):\r\n  File \"<stdin>\", line 1, in <module>\r\nNameError: name 'SIBYL_APP_VERSION' isn't defined\r\n\u{4}>"))
        #expect(reply?.succeeded == false)
        #expect(reply?.error.hasSuffix("NameError: name 'SIBYL_APP_VERSION' isn't defined\n") == true)
    }

    @Test func aStrayBannerBeforeTheReplyIsSkipped() {
        // The firmware's double banner (see MONOCLE-PROTOCOL.md §2.2) made the originals read "unknown".
        let noisy = bytes("raw REPL; CTRL-B to exit\r\n>OKv23.248.0754\r\n\u{4}\u{4}>")
        let reply = RawREPL.reply(in: noisy)
        #expect(reply.flatMap { RawREPL.version(in: $0.output) } == "v23.248.0754")
        #expect(RawREPL.version(in: "b'v23.230.0808'\n") == "v23.230.0808")
        #expect(RawREPL.version(in: "Error") == nil)
    }

    @Test func bannerDetection() {
        #expect(RawREPL.containsBanner(bytes("Traceback…KeyboardInterrupt: \r\nraw REPL; CTRL-B to exit\r\n>")))
        #expect(!RawREPL.containsBanner(bytes("raw REPL; CTRL-B to exit\r\n")))
    }

    @Test func fpgaChunksFitOneWriteEach() {
        #expect(FPGAImage.chunkLength(maximumWriteLength: 253) == 204)
        #expect(FPGAImage.chunkLength(maximumWriteLength: 182) == 132)
        let image = FPGAImage(data: Data((0..<444_430).map { UInt8(truncatingIfNeeded: $0 &* 31) }), version: "v23.230.0808")
        let chunks = image.chunks(maximumWriteLength: 253)
        #expect(chunks.count == 2_905)
        #expect(chunks.allSatisfy { RawREPL.command(FPGAImage.writeCommand($0)).count <= 253 })
        #expect(Data(base64Encoded: chunks.joined()) == image.data)
    }
}
