import Foundation
import FrameGlasses
import FrameProtocol
import Testing

/// Taps are counted on Frame's clock when the app says when they happened: notifications held up
/// on the way arrive together (or apart) here, but keep their spacing on the device.
@Suite(.timeLimit(.minutes(10)))
struct TapTimingTests {
    let start = ContinuousClock.now

    /// A tap notification as Sibyl's app sends it: the flag, then Frame's moment in milliseconds.
    func tap(atDeviceMilliseconds moment: UInt32) -> Data {
        Data([SibylFrameApp.Flag.tap]) + withUnsafeBytes(of: moment.bigEndian) { Data($0) }
    }

    func gestureEnd(_ actions: [SibylFrameWearer.Action]) throws -> ContinuousClock.Instant {
        try #require(actions.compactMap { if case .endGesture(let at) = $0 { at } else { nil } }.first)
    }

    @Test func aDoubleTapThatArrivesAllAtOnceIsStillADoubleTap() throws {
        var wearer = SibylFrameWearer()
        // 150 ms apart on Frame, read here in one go: not one tap bouncing.
        _ = wearer.received(tap(atDeviceMilliseconds: 10_000), at: start)
        let end = try gestureEnd(wearer.received(tap(atDeviceMilliseconds: 10_150), at: start))
        #expect(wearer.gestureEnded(at: end) == [.send([.status(.takingPhoto), .photo])])
    }

    @Test func aBounceIsOneTapWhateverItsArrival() throws {
        var wearer = SibylFrameWearer()
        _ = wearer.received(tap(atDeviceMilliseconds: 10_000), at: start)
        // 20 ms apart on Frame (a bounce), though it arrived 200 ms later here.
        let end = try gestureEnd(wearer.received(tap(atDeviceMilliseconds: 10_020), at: start + .milliseconds(200)))
        #expect(wearer.gestureEnded(at: end) == [.send([.status(.listening), .listen(sampleRate: 8000)]), .recording(forPhoto: false)])
    }

    @Test func twoTapsFarApartOnFrameAreTwoGesturesEvenWhenTheyArriveTogether() throws {
        var wearer = SibylFrameWearer()
        _ = wearer.received(tap(atDeviceMilliseconds: 10_000), at: start)
        // A second apart on Frame: the first was a tap of its own (it starts listening), and this
        // one ends the question, as it would have had both arrived on time.
        let actions = wearer.received(tap(atDeviceMilliseconds: 11_000), at: start)
        #expect(actions == [.send([.status(.listening), .listen(sampleRate: 8000)]), .recording(forPhoto: false), .send([.stop])])
        #expect(wearer.phase == .listening)
    }

    @Test func theDeviceClockMayWrap() throws {
        var wearer = SibylFrameWearer()
        _ = wearer.received(tap(atDeviceMilliseconds: UInt32.max - 50), at: start)
        let end = try gestureEnd(wearer.received(tap(atDeviceMilliseconds: 100), at: start))
        #expect(wearer.gestureEnded(at: end) == [.send([.status(.takingPhoto), .photo])], "151 ms apart across the wrap")
    }
}
