import Foundation

/// Tells speech from other sound one frame at a time, as a neural voice-activity detector (Silero
/// VAD) does. It keeps what it heard between frames, so each stream needs its own.
public protocol SpeechClassifier: AnyObject, Sendable {
    /// Samples per frame, at 16 kHz.
    var frameLength: Int { get }
    /// How likely a frame (`frameLength` samples in -1...1) is speech, 0...1; nil if the
    /// classifier failed (the frame is then judged by its loudness).
    func speechProbability(_ frame: [Float]) -> Float?
}

/// Finds where someone speaks in a stream of 16-bit samples: the end of speech is the first
/// stretch without speech longer than the hang-over. Frames are judged by a `SpeechClassifier`
/// when there is one (a neural detector hears speech, not noise, so it can wait less), else by energy:
///
/// Each 20 ms frame's loudness (RMS, in dB below full scale) is compared with a threshold that is
/// the louder of a fixed floor and the background noise plus a margin; the noise level is learnt
/// from the frames heard before speech. Speech starts after `onset` of loud frames in a row (a
/// click or a cough is shorter) and ends after `hangover` of quiet ones (the pauses between words
/// are shorter). The first 200 ms only calibrate the noise level. The defaults suit a headset or
/// laptop microphone in a room.
public struct VoiceActivityDetector: Sendable {
    /// Thresholds and timings; `sibyl config` names them `voice.*`.
    public struct Configuration: Sendable, Hashable {
        /// Frames quieter than this never count as speech, in dBFS.
        public var thresholdDB: Double
        /// How far above the background noise a frame must be to count as speech, in dB.
        public var marginDB: Double
        /// Loud frames in a row before speech counts as begun.
        public var onset: Duration
        /// Quiet time after speech before the utterance counts as ended.
        public var hangover: Duration
        /// How long to wait for speech to begin.
        public var waitForSpeech: Duration
        /// The longest utterance; longer ones end here.
        public var maximumSpeech: Duration
        /// The first stretch only teaches the detector the room's noise: nobody has started speaking yet.
        public var calibration: Duration

        public init(
            thresholdDB: Double = -45, marginDB: Double = 12, onset: Duration = .milliseconds(120), hangover: Duration = .milliseconds(900),
            waitForSpeech: Duration = .seconds(10), maximumSpeech: Duration = .seconds(30), calibration: Duration = .milliseconds(200)
        ) {
            self.thresholdDB = thresholdDB
            self.marginDB = marginDB
            self.onset = onset
            self.hangover = hangover
            self.waitForSpeech = waitForSpeech
            self.maximumSpeech = maximumSpeech
            self.calibration = calibration
        }
    }

    /// What the detector decided.
    public enum Event: Sendable, Hashable {
        /// Speech began at this sample (the first loud frame of the onset).
        case speechStarted(sample: Int)
        /// Speech ended at this sample (the last loud frame), after the hang-over passed.
        case speechEnded(sample: Int)
        /// Nobody spoke within `waitForSpeech`.
        case noSpeech
        /// Speech went on past `maximumSpeech`; it ends at this sample.
        case tooLong(sample: Int)
    }

    public let configuration: Configuration
    public let sampleRate: Int
    /// Samples per analysis frame (20 ms).
    public let frameLength: Int
    /// The last frame's loudness in dBFS, for a level meter.
    public private(set) var level: Double = -120
    /// The background noise learnt so far, in dBFS.
    public private(set) var noiseFloor: Double?
    /// Whether speech is under way.
    public private(set) var isSpeaking = false
    /// Whether the detector has decided it is done (speech ended, none came, or too long).
    public private(set) var isDone = false
    /// Judges frames when set (16 kHz only); else frames are judged by loudness.
    public let classifier: (any SpeechClassifier)?
    /// The last frame's speech probability from the classifier.
    public private(set) var probability: Float?

    /// A classifier's probability at which speech begins, and below which it counts as paused
    /// (Silero VAD's own defaults).
    public static let speechProbability: Float = 0.5
    public static let pauseProbability: Float = 0.35

    private var pending: [Int16] = []
    private var position = 0
    /// Where the wait for speech began: the start, or where `resume()` was called.
    private var waitingSince = 0
    private var loudRun = 0
    private var quietRun = 0
    private var speechStart = 0
    private var lastLoudEnd = 0

    public init(sampleRate: Int = 16_000, configuration: Configuration = Configuration(), classifier: (any SpeechClassifier)? = nil) {
        self.sampleRate = sampleRate
        self.configuration = configuration
        self.classifier = sampleRate == 16_000 ? classifier : nil
        frameLength = self.classifier?.frameLength ?? max(1, sampleRate / 50)
    }

    /// While speaking: how long it has been quiet since the last speech (the hang-over so far).
    public var quietFor: Duration { isSpeaking ? duration(of: quietRun * frameLength) : .zero }

    /// Where the last speech heard ended (a sample position).
    public var lastSpeechEnd: Int { lastLoudEnd }

    /// Listens on after an end of speech, for a speaker who only paused: more speech gives
    /// `.speechStarted` again, and `waitForSpeech` counts afresh from here.
    public mutating func resume() {
        guard isDone, !isSpeaking else { return }
        isDone = false
        waitingSince = position
        loudRun = 0
        quietRun = 0
    }

    /// A frame as a classifier judges it, with Silero's hysteresis (speech begins at
    /// `speechProbability` and goes on down to `pauseProbability`); nil when the classifier failed.
    static func judge(_ frame: some Collection<Int16>, by classifier: any SpeechClassifier, speaking: Bool) -> (probability: Float, speech: Bool)? {
        guard let probability = classifier.speechProbability(frame.map { Float($0) / 32_768 }) else { return nil }
        return (probability, probability >= (speaking ? pauseProbability : speechProbability))
    }

    /// The threshold a frame must pass now, in dBFS.
    public var threshold: Double {
        max(configuration.thresholdDB, (noiseFloor ?? -120) + configuration.marginDB)
    }

    /// Feeds samples; returns what was decided in them.
    public mutating func process(_ samples: some Collection<Int16>) -> [Event] {
        guard !isDone else { return [] }
        pending.append(contentsOf: samples)
        var events: [Event] = []
        var start = 0
        while pending.count - start >= frameLength, !isDone {
            let frame = pending[start..<start + frameLength]
            start += frameLength
            if let event = analyse(frame) { events.append(event) }
        }
        pending.removeFirst(start)
        return events
    }

    private mutating func analyse(_ frame: ArraySlice<Int16>) -> Event? {
        let frameStart = position
        position += frame.count
        level = Self.decibels(frame)
        let judged = classifier.flatMap { Self.judge(frame, by: $0, speaking: isSpeaking) }
        probability = judged?.probability
        if judged == nil, duration(of: position) <= configuration.calibration {
            noiseFloor = noiseFloor.map { 0.8 * $0 + 0.2 * level } ?? level
            return nil
        }
        let loud = judged?.speech ?? (level >= threshold)
        if !isSpeaking {
            if loud {
                if loudRun == 0 { speechStart = frameStart }
                loudRun += 1
                if duration(of: loudRun * frameLength) >= configuration.onset {
                    isSpeaking = true
                    quietRun = 0
                    lastLoudEnd = position
                    return .speechStarted(sample: speechStart)
                }
            } else {
                loudRun = 0
                // The background is learnt from quiet frames only, slowly, so speech never raises it.
                noiseFloor = noiseFloor.map { 0.95 * $0 + 0.05 * level } ?? level
                if duration(of: position - waitingSince) >= configuration.waitForSpeech {
                    isDone = true
                    return .noSpeech
                }
            }
            return nil
        }
        if loud {
            quietRun = 0
            lastLoudEnd = position
        } else {
            quietRun += 1
            if duration(of: quietRun * frameLength) >= configuration.hangover {
                isSpeaking = false
                isDone = true
                return .speechEnded(sample: lastLoudEnd)
            }
        }
        if duration(of: position - speechStart) >= configuration.maximumSpeech {
            isSpeaking = false
            isDone = true
            return .tooLong(sample: position)
        }
        return nil
    }

    private func duration(of samples: Int) -> Duration {
        .milliseconds(samples * 1000 / sampleRate)
    }

    /// The loudness of samples as RMS in dB below full scale (-120 for silence).
    public static func decibels(_ samples: some Collection<Int16>) -> Double {
        guard !samples.isEmpty else { return -120 }
        var sum = 0.0
        for sample in samples {
            let value = Double(sample) / 32768
            sum += value * value
        }
        let rms = (sum / Double(samples.count)).squareRoot()
        return rms > 0 ? max(-120, 20 * log10(rms)) : -120
    }

    /// Where the speech in a whole recording is: from the first onset to the end of the last loud
    /// frame; nil when nobody speaks. With the whole recording at hand, the background noise is
    /// its quietest tenth rather than what came before the speech.
    ///
    /// With a classifier (16 kHz), frames are judged by it instead of by loudness.
    public static func speechRange(
        in samples: [Int16], sampleRate: Int = 16_000, configuration: Configuration = Configuration(), classifier: (any SpeechClassifier)? = nil
    ) -> Range<Int>? {
        let classifier = sampleRate == 16_000 ? classifier : nil
        let frameLength = classifier?.frameLength ?? max(1, sampleRate / 50)
        guard samples.count >= frameLength else { return nil }
        let starts = stride(from: 0, to: samples.count - frameLength + 1, by: frameLength)
        let judged: [Bool]
        let levels = starts.map { decibels(samples[$0..<$0 + frameLength]) }
        let sorted = levels.sorted()
        let floor = sorted[sorted.count / 10]
        let threshold = max(configuration.thresholdDB, floor + configuration.marginDB)
        if let classifier {
            var speaking = false
            judged = zip(starts, levels).map { start, level in
                guard let frame = judge(samples[start..<start + frameLength], by: classifier, speaking: speaking) else { return level >= threshold }
                speaking = frame.speech
                return speaking
            }
        } else {
            judged = levels.map { $0 >= threshold }
        }
        let onsetFrames = max(1, configuration.onset.milliseconds * sampleRate / (frameLength * 1000))
        var run = 0
        var first: Int?
        var last: Int?
        for (index, speech) in judged.enumerated() {
            if speech {
                run += 1
                if first == nil, run >= onsetFrames { first = (index - run + 1) * frameLength }
                if first != nil { last = (index + 1) * frameLength }
            } else {
                run = 0
            }
        }
        guard let first, let last else { return nil }
        return first..<min(samples.count, last)
    }
}
