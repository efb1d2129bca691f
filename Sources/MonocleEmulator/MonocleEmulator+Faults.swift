import Foundation
import Glasses
import NIOCore
import SecureDFU
import SibylCore

// Faults, for tests.
extension MonocleEmulator {
    /// Drops the link to the phone, as walking out of range would.
    public func disconnect(reason: String = "fault injected") {
        dropClient(reason: reason)
    }

    /// Loses the next `count` data-channel notifications.
    public func dropNotifications(_ count: Int) {
        notificationsToDrop += count
    }

    /// Damages one byte (the first after a quote) of the next serial write that contains `text`.
    public func corruptNextWrite(containing text: String) {
        corruption = text
    }

    /// Forgets the write counts.
    public func resetWriteCounts() {
        writes = [:]
    }

    /// Drops the link when a serial write contains `text` (before the glasses see it).
    public func disconnectWhenSerialContains(_ text: String) {
        disconnectTrigger = text
    }
}
