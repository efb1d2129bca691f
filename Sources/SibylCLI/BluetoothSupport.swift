import Assistant
import FrameGlasses
import FrameProtocol
import Glasses
import GlassesBluetooth
import Monocle
import SibylApp
import SibylConfig
import SibylCore
import Synchronization

/// The system bus and the glasses' services, with errors that say what to check.
enum BluetoothSupport {
    static func bus() throws -> DBusClient {
        do {
            return try DBusClient.system()
        } catch {
            throw CLIError("Cannot reach BlueZ on the system D-Bus: \(error.localizedDescription)", hint: "Is bluetoothd running (systemctl status bluetooth)? Or try --emulator.")
        }
    }

    /// The Bluetooth adapter the settings name (`glasses.adapter`, hci0 by default).
    static func adapter(_ runtime: SibylRuntime) -> String {
        runtime.settings[.glassesAdapter]
    }

    /// What glasses of `kind` offer over Bluetooth.
    static func services(_ kind: GlassesKind) -> GlassesServices {
        switch kind {
        case .monocle: MonocleIdentifiers.services
        case .frame: FrameIdentifiers.services
        }
    }

    /// Every kind's services, Monocle's first.
    static var allServices: [GlassesServices] { GlassesKind.allCases.map(services) }

    /// Reaches the bootloader of glasses of `kind` (and leaves the other kinds' alone).
    static func bootloader(_ kind: GlassesKind, bus: DBusClient, adapter: String) -> BlueZDFUTransport {
        BlueZDFUTransport(bus: bus, adapter: adapter, for: services(kind), others: allServices)
    }

    /// Remembers the glasses held closest (stronger than −65 dBm) as the user's: their address and
    /// kind go to the config (`glasses.device`, `glasses.kind`). `only` limits the choice to one kind.
    static func pairNearest(_ runtime: SibylRuntime, seconds: Double, only kind: GlassesKind? = nil) async throws {
        let bus = try bus()
        defer { bus.close() }
        let picker = PickerBox()
        let kinds = Mutex<[String: GlassesKind]>([:])
        Terminal.print("Hold your \(kind?.displayName ?? "Monocle or Frame") close to this computer…")
        let services = kind.map { [self.services($0)] } ?? allServices
        _ = try await BlueZScanner(bus: bus, adapter: adapter(runtime)).scan(for: .seconds(seconds), services: services) { sightings in
            for glasses in sightings {
                kinds.withLock { $0[glasses.address] = glasses.kind }
                if let rssi = glasses.rssi { picker.saw(glasses.address, rssi: rssi) }
            }
        }
        guard let address = picker.nearest, let found = kinds.withLock({ $0[address] }) else {
            throw CLIError(
                "No \(kind?.displayName ?? "glasses") came close enough (stronger than −65 dBm).",
                hint: "Hold \(kind == nil ? "them" : "it") next to the computer and try again; `sibyl glasses scan` shows what is in reach."
            )
        }
        try await runtime.admin.set(.glassesDevice, to: address)
        try await runtime.admin.set(.glassesKind, to: found)
        Terminal.print("Paired with the \(found.displayName) \(address). Connect with: sibyl glasses connect")
    }
}

/// The picker, shared with the scan's progress callback.
final class PickerBox: Sendable {
    private let picker = Mutex(NearestGlassesPicker())
    func saw(_ address: String, rssi: Int) { picker.withLock { _ = $0.saw(address, rssi: rssi) } }
    var nearest: String? { picker.withLock { $0.nearest } }
}
