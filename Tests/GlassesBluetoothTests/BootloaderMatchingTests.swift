@testable import GlassesBluetooth
import SecureDFU
import Testing

/// Which advertising device a kind's DFU transport takes for its glasses' bootloader.
@Suite(.timeLimit(.minutes(10)))
struct BootloaderMatchingTests {
    @Test func eachKindTakesItsOwnBootloaderOnly() {
        func device(_ name: String?, uuids: [String] = []) -> [String: DBusValue] {
            var properties: [String: DBusValue] = ["UUIDs": .array(uuids.map { .string($0) }, element: "s")]
            if let name { properties["Name"] = .string(name) }
            return properties
        }
        let others = ["Frame Update"]
        #expect(BlueZDFUTransport.isBootloader(device("DfuTarg"), named: "DfuTarg", others: others))
        // Another kind's bootloader offers the DFU service too, but is not this one.
        #expect(!BlueZDFUTransport.isBootloader(device("Frame Update", uuids: [SecureDFU.service]), named: "DfuTarg", others: others))
        // Without a name, the DFU service decides.
        #expect(BlueZDFUTransport.isBootloader(device(nil, uuids: [SecureDFU.service]), named: "DfuTarg", others: others))
        #expect(!BlueZDFUTransport.isBootloader(device("headphones"), named: "DfuTarg", others: others))
    }
}
