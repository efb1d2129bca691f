import Foundation
import Glasses
import NIOCore
import SecureDFU
import SibylCore

// The bootloader (DfuTarg).
extension MonocleEmulator {
    /// Restarts the glasses into their DFU bootloader, as `update.micropython()` does (or as glasses
    /// left there by a failed update are found).
    public func enterBootloader() {
        dropClient(reason: "the glasses entered the firmware bootloader")
        stopInterpreter()
        bootloader = EmulatedBootloader(settings: configuration.bootloader)
        eventSink.yield(.restarted("bootloader (DfuTarg)"))
    }

    func attachDFU(_ continuation: AsyncStream<DFUTransportEvent>.Continuation) {
        dfuClient = continuation
    }

    func connectDFUClient() throws {
        guard bootloader != nil else { throw DFUError.bootloaderNotFound("no DfuTarg is advertising (the emulated glasses run their app)") }
        guard !dfuConnected else { return }
        dfuConnected = true
        dfuClient?.yield(.connected(maximumWriteLength: configuration.maximumWriteLength))
    }

    func disconnectDFUClient() {
        dropDFUClient(reason: "disconnected by the phone")
    }

    func dfuControl(_ bytes: Data) throws {
        guard dfuConnected, var bootloader else { throw DFUError.disconnected("not connected to DfuTarg") }
        let outcome = bootloader.control(bytes)
        self.bootloader = bootloader
        for notification in outcome.notifications { dfuClient?.yield(.notification(notification)) }
        if let image = outcome.activated { activate(image) }
    }

    func dfuPacket(_ bytes: Data) throws {
        guard dfuConnected, var bootloader else { throw DFUError.disconnected("not connected to DfuTarg") }
        dfuPackets += 1
        var bytes = bytes
        if dfuPacketsToCorrupt.remove(dfuPackets) != nil, !bytes.isEmpty {
            bytes[bytes.startIndex] ^= 0xFF // radio noise
        }
        let outcome = bootloader.packet(bytes)
        self.bootloader = bootloader
        for notification in outcome.notifications { dfuClient?.yield(.notification(notification)) }
        if let limit = dfuDisconnectAt, bootloader.firmware.count >= limit {
            dfuDisconnectAt = nil
            dropDFUClient(reason: "fault injected")
        }
    }

    func dropDFUClient(reason: String) {
        guard dfuConnected else { return }
        dfuConnected = false
        dfuClient?.yield(.disconnected(reason: reason))
    }

    /// The bootloader verified a whole image: it resets into the new firmware.
    func activate(_ image: Data) {
        installedFirmware = image
        if let version = DFUPackage.embeddedVersion(in: image) {
            firmwareVersion = version
        } else {
            eventSink.yield(.log("the new firmware image holds no version string; device.VERSION stays \(firmwareVersion)"))
        }
        dropDFUClient(reason: "the bootloader restarted the glasses into the new firmware")
        bootloader = nil
        try? startInterpreter(afterSoftReset: false)
    }

    /// Restarts the glasses out of their bootloader into the application they have (as the reset
    /// button, or the bootloader's inactivity timeout, does).
    public func leaveBootloader() {
        guard bootloader != nil else { return }
        dropDFUClient(reason: "the glasses restarted")
        bootloader = nil
        try? startInterpreter(afterSoftReset: false)
    }

    /// Drops the DfuTarg link once the bootloader holds `bytes` firmware bytes.
    public func disconnectBootloader(atFirmwareByte bytes: Int) {
        dfuDisconnectAt = bytes
    }

    /// Damages the first byte of these DFU packet writes, counted from the next one (1).
    public func corruptDFUPackets(_ numbers: Set<Int>) {
        dfuPacketsToCorrupt = Set(numbers.map { $0 + dfuPackets })
    }
}
