public import Foundation

/// What the wearer asked for, assembled by a driver from its app's messages.
public enum GlassesRequest: Sendable, Equatable {
    /// A spoken question: signed 8-bit samples at 8 kHz.
    case spoken(audio: Data)
    /// A photo (JPEG) and the spoken question about it.
    case photo(jpeg: Data, audio: Data)
    /// The wearer cancelled the pending question.
    case cancel
}
