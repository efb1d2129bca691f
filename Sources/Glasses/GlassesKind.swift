public import SibylCore

extension GlassesKind {
    /// The glasses' name as the user knows it.
    public var displayName: String { self == .frame ? "Frame" : "Monocle" }

    /// The channels the glasses offer: Monocle's serial and data, Frame's one.
    public var channels: [GlassesChannel] { self == .frame ? [.frame] : [.serial, .data] }
}
