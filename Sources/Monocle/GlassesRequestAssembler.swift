import Foundation
public import Glasses

/// Collects `ast:`/`dat:`/`aen:` and `ist:`/`idt:`/`ien:` messages into requests.
///
/// Any number of audio bytes is accepted (the phone apps dropped an odd count, and the glasses
/// then waited forever); an `aen:` without any audio still makes a request, which the pipeline
/// answers with "I didn't hear anything".
public struct GlassesRequestAssembler: Sendable {
    private var audio = Data()
    private var image: Data?
    private var receivingImage = false

    public init() {}

    /// Takes one message; returns a request when one is complete.
    public mutating func consume(_ message: AppMessage) -> GlassesRequest? {
        switch message.command {
        case .audioStart:
            audio = Data()
            image = nil
            receivingImage = false
        case .audioData:
            audio.append(message.payload)
        case .audioEnd:
            defer { audio = Data(); image = nil }
            if let image { return .photo(jpeg: image, audio: audio) }
            return .spoken(audio: audio)
        case .imageStart:
            image = Data()
            receivingImage = true
        case .imageData:
            if receivingImage { image?.append(message.payload) }
        case .imageEnd:
            receivingImage = false
            audio = Data()
        case .cancel:
            audio = Data()
            image = nil
            return .cancel
        case .ready, .pong, .ping, .response, .error, .clear, .imageAck, .heard, .stopListening, .captions, .captionText, .captionsPaused, .prompts:
            break
        }
        return nil
    }
}
