public import Foundation
public import Glasses

/// One message on the data channel: four ASCII bytes naming the command (colon included), then a payload.
///
/// Each message is exactly one write or notification; nothing is reassembled, so a sender must keep
/// every message within the link's maximum write length.
public struct AppMessage: Sendable, Hashable, CustomStringConvertible {
    public var command: Command
    public var payload: Data

    /// The commands Sibyl and its device app exchange (those of the Noa app plus `can:`, `clr:`,
    /// `hrd:`, `stp:` and the live captions' `cap:`, `cpt:` and `cpp:`).
    public enum Command: String, Sendable, Hashable, CaseIterable {
        /// Monocle → host: the app is ready for a question.
        case ready = "rdy:"
        /// Monocle → host: a spoken question starts.
        case audioStart = "ast:"
        /// Monocle → host: signed 8-bit, 8 kHz samples.
        case audioData = "dat:"
        /// Monocle → host: the recording is complete.
        case audioEnd = "aen:"
        /// Monocle → host: a photo starts.
        case imageStart = "ist:"
        /// Monocle → host: JPEG bytes.
        case imageData = "idt:"
        /// Monocle → host: the photo is complete; the spoken prompt follows (`dat:` … `aen:`).
        case imageEnd = "ien:"
        /// Host → Monocle: the question was understood; an answer is being prepared. Monocle echoes it as `pon:`.
        case ping = "pin:"
        /// Monocle → host: the echo of `pin:`.
        case pong = "pon:"
        /// Host → Monocle: answer text (UTF-8), possibly in several chunks.
        case response = "res:"
        /// Host → Monocle: an error for the wearer (UTF-8), shown in red.
        case error = "err:"
        /// Monocle → host: the wearer cancelled the pending question (Sibyl's addition).
        case cancel = "can:"
        /// Host → Monocle: clear the screen (Sibyl's addition).
        case clear = "clr:"
        /// Host → Monocle: the photo was used without a text answer (Noa's image acknowledgement).
        case imageAck = "ick:"
        /// Host → Monocle: the words heard so far, shown while the wearer speaks (Sibyl's addition).
        case heard = "hrd:"
        /// Host → Monocle: the question is over (Sibyl heard its end); the app ends the recording
        /// with `aen:` as a tap would (Sibyl's addition).
        case stopListening = "stp:"
        /// Host → Monocle: live captions on ("1": record on and on, sending `dat:`) or off ("0")
        /// (Sibyl's addition).
        case captions = "cap:"
        /// Host → Monocle: the caption lines to show, separated by newlines (Sibyl's addition).
        case captionText = "cpt:"
        /// Monocle → host: the wearer paused ("1") or resumed ("0") live captions (Sibyl's addition).
        case captionsPaused = "cpp:"
        /// Host → Monocle: the app's own words in the wearer's language, `key=text` lines (Sibyl's addition).
        case prompts = "lng:"
    }

    public init(_ command: Command, _ payload: Data = Data()) {
        self.command = command
        self.payload = payload
    }

    /// Parses a data-channel packet; nil for anything shorter than four bytes or with an unknown command.
    public init?(packet: Data) {
        guard packet.count >= 4,
              let name = String(bytes: packet.prefix(4), encoding: .ascii),
              let command = Command(rawValue: name)
        else { return nil }
        self.init(command, Data(packet.dropFirst(4)))
    }

    /// The bytes to write.
    public var packet: Data { Data(command.rawValue.utf8) + payload }

    /// The payload as text (for `res:`, `err:`, `pin:`, `pon:`).
    public var text: String { String(decoding: payload, as: UTF8.self) }

    public var description: String {
        switch command {
        case .audioData, .imageData: "\(command.rawValue)<\(payload.count) bytes>"
        default: payload.isEmpty ? command.rawValue : "\(command.rawValue)\(text.prefix(40).debugDescription)"
        }
    }

    /// Splits text into `command` messages of at most `maximumLength` bytes each, counting UTF-8 bytes
    /// (not characters, unlike the original apps) and never splitting a character.
    ///
    /// A character that alone would not fit (an extreme emoji sequence) is split between Unicode scalars
    /// instead, which still decodes; empty text gives one empty message, so the wearer sees the state change.
    public static func chunks(of text: String, as command: Command, maximumLength: Int) -> [AppMessage] {
        let room = max(maximumLength - 4, 4)
        var messages: [AppMessage] = []
        var current = Data()
        func flush() {
            messages.append(AppMessage(command, current))
            current = Data()
        }
        func add(_ piece: Data) {
            if current.count + piece.count > room, !current.isEmpty { flush() }
            current.append(piece)
        }
        for character in text {
            let bytes = Data(String(character).utf8)
            if bytes.count <= room {
                add(bytes)
            } else {
                for scalar in character.unicodeScalars { add(Data(String(scalar).utf8)) }
            }
        }
        if !current.isEmpty || messages.isEmpty { flush() }
        return messages
    }

    /// The app's own words as `lng:` messages, whole `key=text` lines in each, every message within
    /// `maximumLength` (a line too long for any message is left out: the app keeps its English one).
    public static func prompts(_ prompts: GlassesPrompts, maximumLength: Int) -> [AppMessage] {
        let lines = [
            ("tap", prompts.tapToSpeak), ("hold", prompts.holdForPhoto), ("photo", prompts.sendingPhoto), ("listen", prompts.listening),
            ("think", prompts.thinking), ("cancel", prompts.cancelled), ("none", prompts.noAnswer), ("cap", prompts.captions),
            ("paused", prompts.captionsPaused), ("open", prompts.openSibyl), ("welcome", prompts.welcome),
        ].map { Data("\($0.0)=\($0.1)".utf8) }
        let room = maximumLength - 4
        var messages: [AppMessage] = []
        var current = Data()
        for line in lines where line.count <= room {
            if !current.isEmpty, current.count + 1 + line.count > room {
                messages.append(AppMessage(.prompts, current))
                current = Data()
            }
            if !current.isEmpty { current.append(0x0A) }
            current.append(line)
        }
        if !current.isEmpty { messages.append(AppMessage(.prompts, current)) }
        return messages
    }
}
