import SibylCore

extension GlassesConnection {
    /// The connection's state and its links, with the rules for moving between them (no I/O).
    struct StateMachine: Sendable {
        private(set) var state: GlassesState
        /// Each link the transport reports gets the next number; what a driver reports on an older one is stale.
        private(set) var generation = 0
        /// The link up now, and its largest write.
        private var link: (generation: Int, maximumWriteLength: Int)?

        /// What to do once a link is lost.
        enum LinkDown: Equatable {
            /// The glasses restarted into their bootloader as asked: install the waiting package.
            case installFirmware
            /// A firmware install runs: the link stays down until it ends.
            case keepUpdating
            /// Disconnected: reconnect, when the connection does.
            case disconnected
        }

        init(kind: GlassesKind) {
            state = GlassesState(kind: kind, phase: .disconnected(reason: nil))
        }

        /// Asking for a link: from `disconnected`, the connection is `connecting`; returns whether that changed.
        mutating func connecting() -> Bool {
            guard case .disconnected = state.phase else { return false }
            state.phase = .connecting
            return true
        }

        /// Connecting failed for good (without reconnecting).
        mutating func connectFailed(reason: String) {
            state.phase = .disconnected(reason: reason)
        }

        /// A link is up; returns its number.
        mutating func linkUp(maximumWriteLength: Int) -> Int {
            generation += 1
            link = (generation, maximumWriteLength)
            return generation
        }

        /// The link is lost.
        mutating func linkDown(reason: String, firmwareWaits: Bool, installing: Bool) -> LinkDown {
            link = nil
            if firmwareWaits { return .installFirmware }
            if installing { return .keepUpdating }
            state.phase = .disconnected(reason: reason)
            return .disconnected
        }

        /// Whether link `generation` is the one up now.
        func isCurrent(_ generation: Int) -> Bool {
            link?.generation == generation
        }

        /// The link up now, for its driver.
        func currentLink(of connection: GlassesConnection) -> GlassesLink? {
            link.map { GlassesLink(connection: connection, generation: $0.generation, maximumWriteLength: $0.maximumWriteLength) }
        }

        /// The link up now while the app runs on it.
        func runningLink(of connection: GlassesConnection) -> GlassesLink? {
            state.isRunning ? currentLink(of: connection) : nil
        }

        /// A driver's step of bringing the app up; false (ignored) when it comes from a link that is
        /// gone, or names a phase only the connection sets.
        mutating func driverEntered(_ phase: GlassesPhase, on generation: Int) -> Bool {
            guard isCurrent(generation) else { return false }
            switch phase {
            case .preparing, .updatingFPGA, .uploadingApp, .starting:
                state.phase = phase
                return true
            case .disconnected, .connecting, .updatingFirmware, .running:
                return false
            }
        }

        /// The app runs on link `generation`; false when that link is gone.
        mutating func appRunning(_ info: GlassesDeviceInfo, on generation: Int) -> Bool {
            guard isCurrent(generation) else { return false }
            state.phase = .running(info)
            return true
        }

        /// A firmware install's progress.
        mutating func updatingFirmware(_ fraction: Double) {
            state.phase = .updatingFirmware(progress: fraction)
        }

        /// A firmware install is over; the glasses restart (`reason` says into what).
        mutating func updateEnded(reason: String) {
            state.phase = .disconnected(reason: reason)
        }
    }
}
