/// The words of Sibyl's settings that name one of a few choices: plain values every layer may use,
/// declared once so that a setting, the code that reads it and the code that acts on it agree.

/// Which kind of Brilliant Labs glasses a device is (`glasses.kind`).
public enum GlassesKind: String, Sendable, Hashable, Codable, CaseIterable {
    case monocle
    case frame
}

