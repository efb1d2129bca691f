import Foundation

extension AudioFormat {
    /// The container recognised from the first bytes, when it is one of those browsers and phones
    /// record or Sibyl writes: WAV, Ogg, WebM (Matroska), MP4/M4A, MP3, FLAC.
    public init?(sniffing data: Data) {
        let bytes = [UInt8](data.prefix(12))
        guard bytes.count >= 4 else { return nil }
        if bytes.starts(with: Array("RIFF".utf8)), bytes.count >= 12, Array(bytes[8..<12]) == Array("WAVE".utf8) {
            self = .wav
        } else if bytes.starts(with: Array("OggS".utf8)) {
            self = .ogg
        } else if bytes.starts(with: [0x1A, 0x45, 0xDF, 0xA3]) {
            self = .webm
        } else if bytes.count >= 8, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            self = .m4a
        } else if bytes.starts(with: Array("fLaC".utf8)) {
            self = .flac
        } else if bytes.starts(with: Array("ID3".utf8)) || (bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0) {
            self = .mp3
        } else {
            return nil
        }
    }

    /// The format a MIME type names (`audio/webm;codecs=opus` is WebM), when it is an audio one.
    public init?(mimeType: String) {
        let essence = mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        switch essence {
        case "audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave": self = .wav
        case "audio/mpeg", "audio/mp3", "audio/mpga": self = .mp3
        case "audio/mp4", "audio/x-m4a", "audio/m4a", "video/mp4": self = .m4a
        case "audio/flac", "audio/x-flac": self = .flac
        case "audio/ogg", "application/ogg", "audio/x-ogg": self = .ogg
        case "audio/opus": self = .opus
        case "audio/aac", "audio/x-aac": self = .aac
        case "audio/webm", "video/webm": self = .webm
        case "audio/pcm", "audio/l16": self = .pcm
        default: return nil
        }
    }
}
