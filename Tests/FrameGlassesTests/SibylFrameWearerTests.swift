import Foundation
import FrameGlasses
import FrameProtocol
import Glasses
import Testing

/// What a tap means to Sibyl's Frame app: the wearer's logic on its own, driven by data and time.
@Suite(.timeLimit(.minutes(10)))
struct SibylFrameWearerTests {
    let tap = Data([SibylFrameApp.Flag.tap])
    let start = ContinuousClock.now

    /// The moment the gesture under way may end, from the actions.
    func gestureEnd(_ actions: [SibylFrameWearer.Action]) throws -> ContinuousClock.Instant {
        try #require(actions.compactMap { if case .endGesture(let at) = $0 { at } else { nil } }.first)
    }

    @Test func oneTapListensAndTheNextEndsTheQuestion() throws {
        var wearer = SibylFrameWearer()
        let end = try gestureEnd(wearer.received(tap, at: start))
        #expect(wearer.gestureEnded(at: end) == [.send([.status(.listening), .listen(sampleRate: 8000)]), .recording(forPhoto: false)])
        #expect(wearer.phase == .listening)
        // The samples are passed on as they come, and make the request at the end.
        #expect(wearer.received(Data([SibylFrameApp.Flag.audio, 1, 2]), at: end) == [.transferStarted, .audio(Data([1, 2]))])
        #expect(wearer.received(tap, at: end) == [.send([.stop])])
        #expect(wearer.received(Data([SibylFrameApp.Flag.audioEnd, 3]), at: end) == [.audio(Data([3])), .request(.spoken(audio: Data([1, 2, 3])))])
        #expect(wearer.phase == .waiting)
        // A tap while the answer is prepared cancels it.
        #expect(wearer.received(tap, at: end) == [.request(.cancel), .send([.status(.idle)])])
        #expect(wearer.phase == .idle)
    }

    @Test func liveCaptionsStreamUntilEndedAndATapPausesAndResumes() throws {
        var wearer = SibylFrameWearer()
        #expect(wearer.startCaptions() == [.send([.listen(sampleRate: 8000)])])
        #expect(wearer.phase == .captioning)
        // The samples are a stream: passed on, never a question, however long it runs.
        for _ in 0..<3 { #expect(wearer.received(Data([SibylFrameApp.Flag.audio, 1, 2]), at: start) == [.audio(Data([1, 2]))]) }
        // A tap pauses at once (no gesture to wait for): the microphone stops and its end is no request.
        #expect(wearer.received(tap, at: start) == [.send([.stop]), .captions(paused: true)])
        #expect(wearer.received(Data([SibylFrameApp.Flag.audioEnd, 3]), at: start) == [])
        #expect(wearer.received(tap, at: start) == [.send([.listen(sampleRate: 8000)]), .captions(paused: false)])
        #expect(wearer.received(Data([SibylFrameApp.Flag.audio, 4]), at: start) == [.audio(Data([4]))])
        // Ended by Sibyl: the microphone stops and a tap asks a question again.
        #expect(wearer.stopCaptions() == [.send([.stop, .status(.idle)])])
        #expect(wearer.phase == .idle)
        #expect(wearer.stopCaptions() == [])
        let end = try gestureEnd(wearer.received(tap, at: start))
        #expect(wearer.gestureEnded(at: end) == [.send([.status(.listening), .listen(sampleRate: 8000)]), .recording(forPhoto: false)])
    }

    @Test func twoTapsTakeAPhotoThenListenForItsQuestion() throws {
        var wearer = SibylFrameWearer()
        _ = wearer.received(tap, at: start)
        let end = try gestureEnd(wearer.received(tap, at: start + .milliseconds(100)))
        #expect(wearer.gestureEnded(at: end) == [.send([.status(.takingPhoto), .photo])])
        #expect(wearer.received(Data([SibylFrameApp.Flag.jpeg, 0xFF, 0xD8]), at: end).isEmpty)
        #expect(wearer.received(Data([SibylFrameApp.Flag.jpegEnd, 0xFF, 0xD9]), at: end) == [.send([.status(.listeningForPhoto), .listen(sampleRate: 8000)]), .recording(forPhoto: true)])
        _ = wearer.received(tap, at: end)
        let asked = wearer.received(Data([SibylFrameApp.Flag.audioEnd, 7]), at: end)
        #expect(asked == [.audio(Data([7])), .request(.photo(jpeg: Data([0xFF, 0xD8, 0xFF, 0xD9]), audio: Data([7])))])
        wearer.answerShown()
        #expect(wearer.phase == .idle)
    }

    @Test func sibylEndsTheRecordingWhenItHearsTheEndOnlyWhileListening() throws {
        var wearer = SibylFrameWearer()
        #expect(wearer.stopListening(at: start).isEmpty, "nothing is recorded")
        let end = try gestureEnd(wearer.received(tap, at: start))
        _ = wearer.gestureEnded(at: end)
        #expect(wearer.stopListening(at: end) == [.send([.stop])])
        #expect(wearer.received(Data([SibylFrameApp.Flag.audioEnd, 3]), at: end) == [.audio(Data([3])), .request(.spoken(audio: Data([3])))])
        #expect(wearer.stopListening(at: end).isEmpty, "the recording is over")
        // The wearer's own tap to end it, a moment late, does not cancel the answer; a later tap does.
        #expect(wearer.received(tap, at: end + .milliseconds(400)).isEmpty)
        #expect(wearer.phase == .waiting)
        #expect(wearer.received(tap, at: end + SibylFrameWearer.stopGrace) == [.request(.cancel), .send([.status(.idle)])])
    }

    @Test func aGestureThatHasNotEndedDoesNothingAndAPhotoThatNeverComesIsGivenUp() throws {
        var wearer = SibylFrameWearer()
        let end = try gestureEnd(wearer.received(tap, at: start))
        #expect(wearer.gestureEnded(at: start).isEmpty, "too early: a second tap may come")
        _ = wearer.received(tap, at: start + .milliseconds(100))
        _ = wearer.gestureEnded(at: end + .milliseconds(100))
        #expect(wearer.phase == .takingPhoto)
        #expect(wearer.received(tap, at: end + .seconds(5)) == [.send([.status(.idle)])])
        #expect(wearer.phase == .idle)
        #expect(wearer.received(Data([0x42]), at: end) == [.notice("ignored data 0x42 from the glasses")])
    }
}
