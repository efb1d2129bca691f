/// Which kind of Brilliant Labs glasses a device is.
public enum GlassesKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Monocle: MicroPython, a serial (REPL) and a data service.
    case monocle
    /// Frame: Lua, one service whose writes are routed by their first byte.
    case frame

    /// The glasses' name as the user knows it.
    public var displayName: String { self == .frame ? "Frame" : "Monocle" }

    /// The channels the glasses offer.
    public var channels: [GlassesChannel] { self == .frame ? [.frame] : [.serial, .data] }

    public var description: String { rawValue }
}
