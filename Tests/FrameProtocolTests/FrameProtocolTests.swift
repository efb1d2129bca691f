import Foundation
import Testing
@testable import FrameProtocol

@Suite(.timeLimit(.minutes(10))) struct FrameWriteTests {
    let limits = FrameLimits(mtu: 247)

    @Test func limitsFollowTheMTU() {
        #expect(limits.maximumLuaLength == 244)
        #expect(limits.maximumDataLength == 243)
        #expect(FrameLimits(mtu: 23).maximumDataLength == 19)
    }

    @Test func writesAreRoutedByTheirFirstByte() throws {
        #expect(try FrameWrite.breakSignal.bytes(limits: limits) == Data([0x03]))
        #expect(try FrameWrite.resetSignal.bytes(limits: limits) == Data([0x04]))
        #expect(try FrameWrite.data(Data([0x00, 0xFF])).bytes(limits: limits) == Data([0x01, 0x00, 0xFF]))
        #expect(try FrameWrite.lua("print(1)").bytes(limits: limits) == Data("print(1)".utf8))
    }

    @Test func whatTheFirmwareWouldMisreadIsRefused() throws {
        let longest = String(repeating: "x", count: 244)
        #expect(try FrameWrite.lua(longest).bytes(limits: limits).count == 244)
        #expect(throws: FrameProtocolError.tooLong(what: "Lua chunk", length: 245, limit: 244)) { try FrameWrite.lua(longest + "x").bytes(limits: limits) }
        // Length is in UTF-8 bytes, not characters.
        #expect(throws: FrameProtocolError.self) { try FrameWrite.lua(String(repeating: "é", count: 123)).bytes(limits: limits) }
        #expect(throws: FrameProtocolError.self) { try FrameWrite.lua("print('a\u{0}b')").bytes(limits: limits) }
        #expect(throws: FrameProtocolError.self) { try FrameWrite.lua("\u{3}print(1)").bytes(limits: limits) }
        #expect(throws: FrameProtocolError.self) { try FrameWrite.lua("").bytes(limits: limits) }
        #expect(throws: FrameProtocolError.self) { try FrameWrite.data(Data(count: 244)).bytes(limits: limits) }
        #expect(try FrameWrite.data(Data(count: 243)).bytes(limits: limits).count == 244)
    }
}

@Suite(.timeLimit(.minutes(10))) struct FrameNotificationTests {
    @Test func dataAndPrintsAreToldApartByTheFirstByte() {
        #expect(FrameNotification(Data([0x01, 0x07, 0xAA])) == .data(Data([0x07, 0xAA])))
        #expect(FrameNotification(Data("243".utf8)) == .printed("243"))
        #expect(FrameNotification(Data("\t".utf8)) == .printed("\t"))
    }

    @Test func bothGenerationsOfAcknowledgementAreRecognised() {
        #expect(FrameNotification(Data([0x01, 0x00])).isAcknowledgement)
        #expect(FrameNotification(Data([0x01, 0x01, 0x00, 0x00])).isAcknowledgement)
        #expect(!FrameNotification(Data([0x01, 0x01])).isAcknowledgement)
        #expect(FrameNotification(Data([0x01, 0x01])).isNegativeAcknowledgement)
        #expect(FrameNotification(Data([0x01, 0x01, 0x00, 0x01])).isNegativeAcknowledgement)
        #expect(!FrameNotification(Data("0".utf8)).isAcknowledgement)
    }
}

@Suite(.timeLimit(.minutes(10))) struct LuaErrorTests {
    @Test func chunkErrorsAreReadWithTheirSourceLineAndMessage() throws {
        let text = #"[string "frame.display.text('Hello there!', 0, 50);pri..."]:1: x_position must be between 1 and 640 pixels"#
        let error = try #require(LuaError(parsing: text))
        #expect(error.source == #"[string "frame.display.text('Hello there!', 0, 50);pri..."]"#)
        #expect(error.line == 1)
        #expect(error.message == "x_position must be between 1 and 640 pixels")
        let file = try #require(LuaError(parsing: "sibyl_app.lua:42: attempt to index a nil value (global 'x')"))
        #expect(file.source == "sibyl_app.lua")
        #expect(file.line == 42)
        #expect(file.message == "attempt to index a nil value (global 'x')")
        #expect(LuaError(parsing: "Hello: world") == nil)
        #expect(LuaError(parsing: "243") == nil)
    }

    @Test func chunkNamesAreWhatLuaGivesAStringSource() {
        #expect(LuaError.chunkName(ofSource: "print(1)") == #"[string "print(1)"]"#)
        // 45 bytes or more, or more than one line: the first line cut to 45 bytes, then "...".
        let long = "frame.display.text('Hello there!', 0, 50);print(0)"
        #expect(LuaError.chunkName(ofSource: long) == #"[string "frame.display.text('Hello there!', 0, 50);pri..."]"#)
        #expect(LuaError.chunkName(ofSource: "a=1\nb=2") == #"[string "a=1..."]"#)
        #expect(LuaError.chunkName(ofSource: String(repeating: "x", count: 44)) == "[string \"\(String(repeating: "x", count: 44))\"]")
        #expect(LuaError.chunkName(ofSource: String(repeating: "x", count: 45)) == "[string \"\(String(repeating: "x", count: 45))...\"]")
        #expect(LuaError.chunkName(ofSource: "frame.stay_awake(false); require('main')") == #"[string "frame.stay_awake(false); require('main')"]"#)
    }
}

@Suite(.timeLimit(.minutes(10))) struct LuaFileUploadTests {
    @Test func everyChunkFitsAndNoEscapeOrCharacterIsCut() throws {
        let text = String(repeating: "local s = \"Ünïcødé \\ 'quotes'\"\tand\r\n日本語 ✓ \u{1}\u{0} end\n", count: 40)
        // At MTU 23 (no MTU exchange) not even the command that opens the file fits.
        #expect(throws: FrameProtocolError.self) { try LuaFileUpload(path: "a.lua", text: text).chunks(limits: FrameLimits(mtu: 23), suffixLength: 9) }
        for mtu in [64, 100, 185, 247] {
            let limits = FrameLimits(mtu: mtu)
            let chunks = try LuaFileUpload(path: "sibyl_app.lua", text: text).chunks(limits: limits, suffixLength: 9)
            #expect(chunks.first == "f=frame.file.open(\"sibyl_app.lua\",'w')")
            #expect(chunks.last == "f:close()")
            for chunk in chunks {
                #expect(chunk.utf8.count + 9 <= limits.maximumLuaLength)
                #expect(try FrameWrite.lua(chunk).bytes(limits: limits).count == chunk.utf8.count)
            }
            // Undoing the escapes gives the file back, byte for byte.
            var rebuilt = Data()
            for chunk in chunks.dropFirst().dropLast() {
                #expect(chunk.hasPrefix("f:write(\"") && chunk.hasSuffix("\")"))
                rebuilt.append(Self.unescape(chunk.dropFirst(9).dropLast(2)))
            }
            #expect(rebuilt == Data(text.utf8), "MTU \(mtu)")
        }
    }

    @Test func anEmptyFileIsOpenedAndClosed() throws {
        #expect(try LuaFileUpload(path: "x.lua", text: "").chunks(limits: FrameLimits(mtu: 247)) == ["f=frame.file.open(\"x.lua\",'w')", "f:close()"])
    }

    @Test func aNameTooLongForOneChunkIsRefused() {
        #expect(throws: FrameProtocolError.self) {
            try LuaFileUpload(path: String(repeating: "n", count: 30), text: "x").chunks(limits: FrameLimits(mtu: 23))
        }
    }

    /// Lua's escapes as far as LuaLiteral writes them.
    static func unescape(_ literal: Substring) -> Data {
        var bytes: [UInt8] = []
        let utf8 = Array(literal.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == 0x5C {
                let next = utf8[index + 1]
                switch next {
                case 0x6E: bytes.append(0x0A); index += 2
                case 0x72: bytes.append(0x0D); index += 2
                case 0x74: bytes.append(0x09); index += 2
                case 0x30...0x39:
                    bytes.append(UInt8(String(decoding: utf8[(index + 1)...(index + 3)], as: UTF8.self))!)
                    index += 4
                default: bytes.append(next); index += 2
                }
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return Data(bytes)
    }
}

@Suite(.timeLimit(.minutes(10))) struct FrameStreamTests {
    @Test func tapsBecomeGesturesAfterAQuietWindow() {
        var counter = FrameTapCounter()
        let start = ContinuousClock.now
        counter.tap(at: start)
        counter.tap(at: start + .milliseconds(10))  // a bounce, not a second tap
        #expect(counter.gesture(at: start + .milliseconds(200)) == nil)
        counter.tap(at: start + .milliseconds(250))
        #expect(counter.deadline == start + .milliseconds(550))
        #expect(counter.gesture(at: start + .milliseconds(500)) == nil)
        #expect(counter.gesture(at: start + .milliseconds(560)) == 2)
        #expect(counter.gesture(at: start + .seconds(2)) == nil)
    }

    @Test func aStreamIgnoresOtherFlagsAndStartsAfreshAfterItsEnd() {
        var photo = FrameStreamAssembler.photo()
        #expect(photo.add(Data([0x07, 1, 2])) == nil)
        #expect(photo.add(Data([0x09])) == nil)
        #expect(photo.add(Data([0x08, 3])) == Data([1, 2, 3]))
        #expect(photo.add(Data([0x08])) == Data())
    }
}
