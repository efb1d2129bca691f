import Glasses
import Testing

@Suite(.timeLimit(.minutes(10))) struct NearestGlassesPickerTests {
    @Test func aDeviceIsChosenWhenCloseAndKeptUntilFarAway() {
        var picker = NearestGlassesPicker()
        #expect(picker.saw("A", rssi: -70) == nil) // not close enough yet
        #expect(picker.saw("A", rssi: -60) == "A")
        #expect(picker.saw("A", rssi: -80) == "A") // between the thresholds: kept
        #expect(picker.saw("B", rssi: -70) == "A") // another one, not close: ignored
        #expect(picker.saw("A", rssi: -90) == nil) // walked away
        #expect(picker.saw("B", rssi: -50) == "B")
        #expect(picker.saw("C", rssi: -55) == "B") // close too, but weaker than B
        #expect(picker.saw("C", rssi: -40) == "C") // closer than B
    }
}
