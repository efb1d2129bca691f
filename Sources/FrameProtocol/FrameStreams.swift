import Foundation

/// Puts together what a device app streams back in data notifications of the form
/// `flag, bytes…`: chunks under one flag until a chunk under the final flag (which may be empty).
/// frame-msg streams photos as 0x07…/0x08 and audio as 0x05…/0x06.
public struct FrameStreamAssembler: Sendable {
    public let chunkFlag: UInt8
    public let finalFlag: UInt8
    private var buffer = Data()

    public static func photo() -> Self { Self(chunkFlag: 0x07, finalFlag: 0x08) }
    public static func audio() -> Self { Self(chunkFlag: 0x05, finalFlag: 0x06) }

    public init(chunkFlag: UInt8, finalFlag: UInt8) {
        self.chunkFlag = chunkFlag
        self.finalFlag = finalFlag
    }

    /// Whether a data notification belongs to this stream.
    public func accepts(_ data: Data) -> Bool {
        data.first == chunkFlag || data.first == finalFlag
    }

    /// Bytes received so far for the stream in progress.
    public var receivedCount: Int { buffer.count }

    /// Takes one data notification (without the firmware's 0x01); returns the whole stream when
    /// this was its final chunk, nil otherwise (also for notifications of other flags).
    public mutating func add(_ data: Data) -> Data? {
        guard let flag = data.first, accepts(data) else { return nil }
        buffer.append(data.dropFirst())
        guard flag == finalFlag else { return nil }
        defer { buffer = Data() }
        return buffer
    }

    /// Forgets a stream in progress (after a disconnect or a cancelled capture).
    public mutating func reset() {
        buffer = Data()
    }
}

/// PCM from Frame's microphone as a WAV file.
public enum FrameAudio {
    /// A mono WAV of `pcm` as the microphone gives it: 16-bit little-endian signed samples, or
    /// 8-bit signed ones, which WAV stores unsigned (offset by 128).
    public static func wav(pcm: Data, sampleRate: Int = 8000, bitsPerSample: Int = 8) -> Data {
        var samples = pcm
        if bitsPerSample == 8 {
            samples = Data(pcm.map { $0 &+ 128 })
        }
        var header = Data()
        func append32(_ value: Int) { withUnsafeBytes(of: UInt32(truncatingIfNeeded: value).littleEndian) { header.append(contentsOf: $0) } }
        func append16(_ value: Int) { withUnsafeBytes(of: UInt16(truncatingIfNeeded: value).littleEndian) { header.append(contentsOf: $0) } }
        let blockAlign = bitsPerSample / 8
        header.append(contentsOf: "RIFF".utf8)
        append32(36 + samples.count)
        header.append(contentsOf: "WAVEfmt ".utf8)
        append32(16)
        append16(1)  // PCM
        append16(1)  // mono
        append32(sampleRate)
        append32(sampleRate * blockAlign)
        append16(blockAlign)
        append16(bitsPerSample)
        header.append(contentsOf: "data".utf8)
        append32(samples.count)
        return header + samples
    }
}

/// Counts taps into single, double, … taps: a tap within `debounce` of the one before is the
/// same tap bouncing; taps closer than `window` to each other make one gesture.
///
/// Taps are compared by the moment Frame saw them when it says (its clock, in milliseconds), else
/// by when they arrived: notifications held up on the way (a busy link or host) arrive together
/// or apart, while the device's moments keep their spacing. A gesture ends once `window` has passed
/// here without another tap.
public struct FrameTapCounter: Sendable {
    public let debounce: Duration
    public let window: Duration
    private var last: ContinuousClock.Instant?
    private var lastOnDevice: UInt32?
    private var count = 0

    public init(debounce: Duration = .milliseconds(40), window: Duration = .milliseconds(300)) {
        self.debounce = debounce
        self.window = window
    }

    /// Records a tap notification that arrived at `now`; `onDevice` is when Frame saw it (ms on its
    /// clock), when it says. Returns the tap count of a gesture this tap shows to be over already: on
    /// Frame's clock it came `window` or more after the one before, which arrived late with it.
    @discardableResult
    public mutating func tap(at now: ContinuousClock.Instant, onDevice: UInt32? = nil) -> Int? {
        defer {
            last = now
            lastOnDevice = onDevice
        }
        guard count > 0, let last else {
            count = 1
            return nil
        }
        let gap = if let onDevice, let lastOnDevice { Duration.milliseconds(Int(onDevice &- lastOnDevice)) } else { now - last }
        if gap < debounce { return nil }
        if gap >= window {
            defer { count = 1 }
            return count
        }
        count += 1
        return nil
    }

    /// The gesture's tap count once `window` has passed without another tap; nil while one may follow.
    public mutating func gesture(at now: ContinuousClock.Instant) -> Int? {
        guard count > 0, let last, now - last >= window else { return nil }
        defer { count = 0 }
        return count
    }

    /// When `gesture(at:)` can next answer, if a gesture is in progress.
    public var deadline: ContinuousClock.Instant? {
        guard count > 0, let last else { return nil }
        return last + window
    }
}
