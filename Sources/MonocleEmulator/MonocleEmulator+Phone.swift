import Foundation
import Glasses
import NIOCore
import SecureDFU
import SibylCore

// The phone's side (used by EmulatorTransport).
extension MonocleEmulator {
    func attach(_ continuation: AsyncStream<GlassesTransportEvent>.Continuation) {
        client = continuation
    }

    func connectClient() throws {
        guard bootloader == nil else {
            throw GlassesError.transport("no Monocle is advertising: the emulated glasses are in their bootloader (DfuTarg)")
        }
        guard link != nil, process != nil else { throw GlassesError.transport("the emulated glasses are off") }
        guard !clientConnected else { return }
        clientConnected = true
        send(EmulatorFrame(.connection, Array("1".utf8)))
        client?.yield(.connected(maximumWriteLength: configuration.maximumWriteLength))
    }

    func disconnectClient() {
        dropClient(reason: "disconnected by the phone")
    }

    /// One write, already at most the MTU.
    func clientWrite(_ bytes: Data, to channel: GlassesChannel) throws {
        guard clientConnected else { throw GlassesError.notConnected }
        guard channel != .frame else { throw GlassesError.transport("a Monocle has no Frame channel") }
        writes[channel, default: 0] += 1
        switch channel {
        case .serial:
            var bytes = [UInt8](bytes)
            if let corruption, let text = String(bytes: bytes, encoding: .utf8), text.contains(corruption),
               let position = bytes.firstIndex(of: UInt8(ascii: "'")).map({ $0 + 1 }), position < bytes.count {
                // Damage one character of the quoted payload, as radio noise would.
                bytes[position] = UInt8(ascii: "!")
                self.corruption = nil
            }
            if let trigger = disconnectTrigger, String(decoding: bytes, as: UTF8.self).contains(trigger) {
                disconnectTrigger = nil
                dropClient(reason: "fault injected")
                return
            }
            perform(frontEnd.receive(bytes))
        case .data, .frame:
            receivedMessages.append(bytes)
            send(EmulatorFrame(.dataWrite, [UInt8](bytes)))
        }
    }

    func dropClient(reason: String) {
        guard clientConnected else { return }
        clientConnected = false
        send(EmulatorFrame(.connection, Array("0".utf8)))
        client?.yield(.disconnected(reason: reason))
    }
}
