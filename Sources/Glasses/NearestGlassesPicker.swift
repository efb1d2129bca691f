/// Chooses the glasses to pair with: the pair held close, with hysteresis so the choice doesn't flap.
///
/// A device becomes the candidate once its signal is stronger than `nearRSSI` (−65 dBm) and stays
/// so until it drops below `farRSSI` (−85 dBm), as in the phone apps; a stronger device near enough
/// replaces it. (The phone apps also sorted their list the wrong way round and kept expired
/// entries; here the strongest current sighting wins.)
public struct NearestGlassesPicker: Sendable {
    /// Signal strength above which glasses become the ones offered for pairing…
    public static let nearRSSI = -65
    /// …and below which they stop being offered (hysteresis, so a wearer walking around doesn't flap).
    public static let farRSSI = -85

    /// The address chosen, if any.
    public private(set) var nearest: String?
    private var strength: [String: Int] = [:]

    public init() {}

    /// Takes one sighting (address and RSSI in dBm); returns the current choice.
    @discardableResult
    public mutating func saw(_ address: String, rssi: Int) -> String? {
        strength[address] = rssi
        if let current = nearest, current == address, rssi < Self.farRSSI {
            nearest = nil
        }
        if rssi > Self.nearRSSI, rssi > (nearest.flatMap { strength[$0] } ?? Int.min) || nearest == nil {
            nearest = address
        }
        return nearest
    }
}
