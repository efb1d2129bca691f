import CFrameLua

/// What the virtual Frame's camera and microphone are doing, for host-side tests.
public struct FramePeripherals: Sendable, Equatable {
    /// A `frame.camera.capture` call's settings.
    public struct Capture: Sendable, Equatable {
        /// The square image size in pixels (100…720).
        public var resolution: Int
        /// `"VERY_LOW"` … `"VERY_HIGH"`.
        public var quality: String
        /// Vertical pan, −140…140.
        public var pan: Int

        /// Capture settings as an app passes them.
        public init(resolution: Int, quality: String, pan: Int) {
            self.resolution = resolution
            self.quality = quality
            self.pan = pan
        }
    }

    /// How many captures were made since power-on.
    public var captures: Int
    /// The last capture's settings, if any.
    public var lastCapture: Capture?
    /// `frame.camera.power_save(true)` is in effect.
    public var isCameraAsleep: Bool
    /// The microphone's sample rate and bit depth while it runs (nil when stopped).
    public var microphone: (sampleRate: Int, bitDepth: Int)?
    /// How far the app has read what the microphone hears since `frame.microphone.start`, in
    /// 16 kHz samples: once it reaches the input's length (see `setMicrophoneInput`), the app
    /// has heard all of it.
    public var microphoneSamplesRead: Int
    /// `frame.stay_awake(true)` is in effect.
    public var staysAwake: Bool

    public static func == (a: Self, b: Self) -> Bool {
        a.captures == b.captures && a.lastCapture == b.lastCapture && a.isCameraAsleep == b.isCameraAsleep
            && a.microphone?.sampleRate == b.microphone?.sampleRate && a.microphone?.bitDepth == b.microphone?.bitDepth
            && a.microphoneSamplesRead == b.microphoneSamplesRead && a.staysAwake == b.staysAwake
    }

    static let qualities = ["VERY_LOW", "LOW", "MEDIUM", "HIGH", "VERY_HIGH"]

    init(_ state: cframe_peripherals) {
        captures = Int(state.captures)
        lastCapture = state.captures > 0
            ? Capture(resolution: Int(state.resolution), quality: Self.qualities[Int(state.quality)], pan: Int(state.pan))
            : nil
        isCameraAsleep = state.camera_asleep != 0
        microphone = state.microphone_running != 0 ? (Int(state.sample_rate), Int(state.bit_depth)) : nil
        microphoneSamplesRead = Int(state.microphone_read)
        staysAwake = state.stay_awake != 0
    }
}

extension FrameEmulator {
    /// What the camera and microphone are doing now.
    public var peripherals: FramePeripherals {
        FramePeripherals(cframe_peripheral_state(deviceHandle.pointer))
    }
}
