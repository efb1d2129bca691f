import Foundation
import Glasses
import Monocle
import MonocleEmulator
import SibylCore
import SibylTestSupport
import Testing

/// What a device app's author meets on the virtual glasses, as on real ones: a microphone that has
/// nothing to give yet (None) while it records, and a data link that is sometimes busy.
@Suite(.timeLimit(.minutes(10)), .enabled(if: TestGlasses.available, "the MicroPython interpreter is not installed (sibyl models install emulator)"))
struct DeviceAppAuthoringTests {
    /// Waits until the serial output contains `text`, looking again at each `serial` event the
    /// glasses report (they buffer them from power-on, so none is missed); the limit is a ceiling
    /// against hangs. Each test calls this once: the glasses' events have one reader at a time.
    func serial(_ glasses: MonocleEmulator, containing text: String, timeout: Duration = .seconds(300)) async throws -> String {
        try await waitFor("\(text.debugDescription) on the serial line", within: timeout) {
            func printed() async -> String { String(decoding: await glasses.serialLog, as: UTF8.self) }
            if await printed().contains(text) { return }
            for await event in glasses.events {
                if case .serial = event, await printed().contains(text) { return }
            }
        }
        return String(decoding: await glasses.serialLog, as: UTF8.self)
    }

    /// A 6-second tone at 16 kHz, loud all the way through.
    static func tone(seconds: Int = 6) throws -> Data {
        let rate = 16_000
        var samples = Data()
        for i in 0..<(rate * seconds) {
            let value = Int16(12_000 * sin(2 * Double.pi * 440 * Double(i) / Double(rate)))
            withUnsafeBytes(of: value.littleEndian) { samples.append(contentsOf: $0) }
        }
        return WAVAudio(sampleRate: rate, channels: 1, bitsPerSample: 16, samples: samples).encoded()
    }

    /// The firmware's `microphone.read` returns None whenever the FPGA holds no samples at that
    /// instant, during the recording too: None means "nothing yet", not "finished". An app that keeps
    /// reading until the recording's samples are all in gets the whole 6-second question, at the
    /// microphone's real pace.
    @Test func anAppThatReadsInALoopGetsTheWholeSixSecondQuestionInRealTime() async throws {
        let main = """
        import microphone, time, touch
        taps = []
        touch.callback(touch.EITHER, lambda pad: taps.append(pad))
        while not taps:
            touch.state()
            time.sleep_ms(10)
        microphone.record(seconds=6.0, bit_depth=8, sample_rate=8000)
        start = time.ticks_ms()
        audio = bytearray()
        empty = 0
        while len(audio) < 48000 and time.ticks_diff(time.ticks_ms(), start) < 60000:
            chunk = microphone.read(127)
            if chunk is None:
                empty += 1
                time.sleep_ms(5)
                continue
            audio += chunk
        def peak(part):
            return max(abs(b - 256 if b > 127 else b) for b in part)
        print("bytes", len(audio), "first second", peak(audio[:8000]), "last second", peak(audio[-8000:]))
        print("after the end:", microphone.read(127))

        """
        try await TestGlasses.with(files: ["main.py": main], configure: { $0.realTimeMicrophone = true }) { glasses in
            try await glasses.speak(wav: Self.tone())
            await glasses.tap()
            let printed = try await serial(glasses, containing: "after the end:")
            let numbers = try #require(printed.firstMatch(of: /bytes (\d+) first second (\d+) last second (\d+)/), "\(printed)")
            #expect(Int(numbers.1) == 48_000, "\(printed)")
            // The tone is heard from the first second to the sixth (8-bit: the sample's high byte, ±46).
            #expect(Int(numbers.2)! > 30, "\(printed)")
            #expect(Int(numbers.3)! > 30, "\(printed)")
            // Once the recording is drained, there is nothing more.
            #expect(printed.contains("after the end: None"), "\(printed)")
        }
    }

    /// Right after `record`, and whenever the app has read all there is, the real-time microphone
    /// has nothing: `read` returns None, though the recording goes on.
    @Test func theRealTimeMicrophoneSaysNoneWhileTheRecordingGoesOn() async throws {
        let main = """
        import microphone, time
        microphone.record(seconds=60.0, bit_depth=8, sample_rate=8000)
        while microphone.read(127) is not None:
            pass
        time.sleep_ms(200)
        print("after None:", len(microphone.read(127)))

        """
        try await TestGlasses.with(files: ["main.py": main], configure: { $0.realTimeMicrophone = true }) { glasses in
            let printed = try await serial(glasses, containing: "after None:")
            // 200 ms at 8 kHz is 1600 samples: the next read is a full one.
            #expect(printed.contains("after None: 127\r\n"), "\(printed)")
        }
    }

    /// With the firmware's queue, `bluetooth.send` fails while the queue is full, with the
    /// firmware's exception; the notifications that fit reach the phone.
    @Test func aFullDataQueueMakesSendFailAsTheFirmwareDoes() async throws {
        let main = """
        import bluetooth, time
        while not bluetooth.connected():
            time.sleep_ms(10)
        for i in range(4):
            try:
                bluetooth.send(b"msg:" + str(i).encode())
                print("sent", i)
            except OSError as e:
                print("failed", i, type(e).__name__, e)

        """
        try await TestGlasses.with(files: ["main.py": main], configure: { $0.dataQueue = DataQueue(capacity: 2, interval: .seconds(600)) }) { glasses in
            let phone = EmulatorTransport(emulator: glasses)
            let recorder = TransportRecorder(phone)
            try await phone.connect()
            let printed = try await serial(glasses, containing: "3 ")
            #expect(printed.contains("sent 0\r\nsent 1\r\nfailed 2 OSError raw data service is busy\r\nfailed 3 OSError raw data service is busy"), "\(printed)")
            // Sends 2 and 3 raised before anything went out: the two sent are all there is.
            #expect(try await recorder.waitForData(count: 2) == [Data("msg:0".utf8), Data("msg:1".utf8)])
        }
    }

    /// An app that tries again gets every message through, in order, as the queue empties at each
    /// connection event.
    @Test func anAppThatRetriesGetsEveryMessageThroughABusyLink() async throws {
        let main = """
        import bluetooth, time
        while not bluetooth.connected():
            time.sleep_ms(10)
        busy = 0
        for i in range(6):
            while True:
                try:
                    bluetooth.send(b"msg:" + str(i).encode())
                    break
                except OSError:
                    busy += 1
                    time.sleep_ms(5)
        print("done, busy", busy)

        """
        try await TestGlasses.with(files: ["main.py": main], configure: { $0.dataQueue = DataQueue(capacity: 2, interval: .milliseconds(500)) }) { glasses in
            let phone = EmulatorTransport(emulator: glasses)
            let recorder = TransportRecorder(phone)
            try await phone.connect()
            let printed = try await serial(glasses, containing: "done, busy")
            let busy = try #require(printed.firstMatch(of: /done, busy (\d+)/))
            #expect(Int(busy.1)! > 0, "six messages through a 2-deep queue emptied every 500 ms must meet a full queue: \(printed)")
            #expect(try await recorder.waitForData(count: 6, timeout: .seconds(60)) == (0..<6).map { Data("msg:\($0)".utf8) })
        }
    }
}
