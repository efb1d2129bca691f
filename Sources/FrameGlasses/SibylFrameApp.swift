import Foundation
public import FrameProtocol
public import Glasses

/// The messages Sibyl's Frame app (`sibyl_frame.lua`) and the host exchange.
public enum SibylFrameApp {
    /// Printed once the app's loop runs.
    public static let readyLine = "sibyl:ready"
    /// The start of what the app prints when something fails on the glasses.
    public static let errorPrefix = "sibyl:error "

    /// Host → Frame message codes.
    public enum Code: UInt8, Sendable {
        /// A colour byte, then lines separated by "\n" (shown six at a time, scrolling).
        case text = 0x20
        /// One byte: a ``Status``.
        case status = 0x21
        /// Start the microphone: sample rate (UInt16 big-endian) and bit depth; samples stream back.
        case listen = 0x22
        /// Stop the microphone; the rest of the samples and the end flag follow.
        case stop = 0x23
        /// Take a photo with ``FrameCaptureSettings``; the JPEG streams back.
        case photo = 0x24
        /// Clear the screen.
        case clear = 0x25
        /// The app's own words in the wearer's language: its five status lines, then its error's
        /// two lines, separated by "\n" (the idle one shows again at once).
        case prompts = 0x26
    }

    /// Frame → host data flags.
    public enum Flag {
        public static let tap: UInt8 = 0x09
        public static let audio: UInt8 = 0x05
        public static let audioEnd: UInt8 = 0x06
        public static let jpeg: UInt8 = 0x07
        public static let jpegEnd: UInt8 = 0x08
    }

    /// The status lines the app shows by itself.
    public enum Status: UInt8, Sendable {
        case idle = 0, listening, thinking, takingPhoto, listeningForPhoto
    }

    /// Text colours: indices into the app's palette-name table.
    public enum Colour: UInt8, Sendable {
        case white = 1, grey = 2, red = 3, yellow = 8, green = 10, skyBlue = 14
    }

    /// The longest text sent at once, in lines.
    public static let maximumLines = 60

    public static func text(_ text: String, colour: Colour = .white) throws(FrameProtocolError) -> FrameMessage {
        let lines = wrap(text).prefix(maximumLines)
        return try FrameMessage(code: Code.text.rawValue, payload: Data([colour.rawValue]) + Data(lines.joined(separator: "\n").utf8))
    }

    public static func status(_ status: Status) throws(FrameProtocolError) -> FrameMessage {
        try FrameMessage(code: Code.status.rawValue, payload: Data([status.rawValue]))
    }

    public static func listen(sampleRate: Int = 8000, bitDepth: Int = 8) throws(FrameProtocolError) -> FrameMessage {
        try FrameMessage(code: Code.listen.rawValue, payload: Data([UInt8(sampleRate >> 8), UInt8(sampleRate & 0xFF), UInt8(bitDepth)]))
    }

    public static func stop() throws(FrameProtocolError) -> FrameMessage {
        try FrameMessage(code: Code.stop.rawValue, payload: Data())
    }

    public static func photo(_ settings: FrameCaptureSettings = FrameCaptureSettings(resolution: 720, quality: .high)) throws(FrameProtocolError) -> FrameMessage {
        try FrameMessage(code: Code.photo.rawValue, settings)
    }

    /// The app's own words, in ``Status`` order, then its error's two lines.
    public static func prompts(_ prompts: GlassesPrompts) throws(FrameProtocolError) -> FrameMessage {
        let lines = [
            prompts.tapToAsk, prompts.listening + "...", prompts.thinking + "...", prompts.takingPhoto + "...", prompts.listeningForPhoto + "...",
            prompts.somethingWentWrong, prompts.tapToTryAgain,
        ]
        return try FrameMessage(code: Code.prompts.rawValue, payload: Data(lines.joined(separator: "\n").utf8))
    }

    public static func clear() throws(FrameProtocolError) -> FrameMessage {
        try FrameMessage(code: Code.clear.rawValue, payload: Data())
    }

    /// Breaks text into lines that fit Frame's 640-pixel-wide display, at spaces where it can.
    ///
    /// Frame's system font is proportional and the host cannot measure it, so widths are estimates
    /// (on the generous side, so a line is rather too short than cut off).
    public static func wrap(_ text: String, width: Int = 620) -> [String] {
        var lines: [String] = []
        for paragraph in text.split(separator: "\n", omittingEmptySubsequences: false) {
            var line = ""
            var lineWidth = 0
            for word in paragraph.split(separator: " ", omittingEmptySubsequences: true) {
                let wordWidth = word.reduce(0) { $0 + estimatedWidth(of: $1) }
                let spaceWidth = line.isEmpty ? 0 : estimatedWidth(of: " ")
                if lineWidth + spaceWidth + wordWidth <= width {
                    line += (line.isEmpty ? "" : " ") + word
                    lineWidth += spaceWidth + wordWidth
                    continue
                }
                if !line.isEmpty { lines.append(line) }
                line = ""
                lineWidth = 0
                // A word wider than a line is cut where it must be.
                for character in word {
                    let characterWidth = estimatedWidth(of: character)
                    if lineWidth + characterWidth > width, !line.isEmpty {
                        lines.append(line)
                        line = ""
                        lineWidth = 0
                    }
                    line.append(character)
                    lineWidth += characterWidth
                }
            }
            lines.append(line)
        }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }

    /// An estimate of a character's advance in Frame's font, in pixels.
    static func estimatedWidth(of character: Character) -> Int {
        guard let scalar = character.unicodeScalars.first else { return 0 }
        switch scalar.value {
        case 0x20: return 13
        case 0x21...0x7E:
            if "il.,:;'!|`".unicodeScalars.contains(scalar) { return 7 }
            if "fjrt()[]{}\"".unicodeScalars.contains(scalar) { return 11 }
            if "mwMW%@".unicodeScalars.contains(scalar) { return 30 }
            if CharacterSet.uppercaseLetters.contains(scalar) { return 22 }
            return 18
        case 0x1100...: return 36
        default: return 20
        }
    }
}
