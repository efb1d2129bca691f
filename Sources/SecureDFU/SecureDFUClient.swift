public import Foundation
import Synchronization

/// Why a firmware update over Secure DFU stopped.
public enum DFUError: Error, Sendable, Equatable, LocalizedError {
    /// No `DfuTarg` answered (the glasses are not in their bootloader, or out of reach).
    case bootloaderNotFound(String)
    case disconnected(String)
    case timeout(waitingFor: String, after: Duration)
    /// The bootloader refused a request.
    case rejected(request: String, reason: String)
    /// An object's CRC-32 differed every time it was sent.
    case checksumMismatch(String)
    /// The link kept dropping.
    case gaveUp(after: Int, lastError: String)

    public var errorDescription: String? {
        switch self {
        case .bootloaderNotFound(let reason): "The glasses' bootloader (Monocle: DfuTarg, Frame: Frame Update) was not found: \(reason)"
        case .disconnected(let reason): "The bootloader disconnected (\(reason))."
        case .timeout(let what, let after): "The bootloader did not answer in time (waited \(after) for \(what))."
        case .rejected(let request, let reason): "The bootloader refused to \(request): \(reason)."
        case .checksumMismatch(let what): "The \(what) kept arriving damaged (CRC-32 mismatch)."
        case .gaveUp(let attempts, let last): "The firmware update failed after \(attempts) attempts: \(last)"
        }
    }

    /// Whether trying again on a new link may help. (Not finding the bootloader after looking for
    /// `findTimeout` is final: the glasses left it, or went out of reach.)
    var isLinkProblem: Bool {
        switch self {
        case .disconnected, .timeout, .checksumMismatch: true
        case .bootloaderNotFound, .rejected, .gaveUp: false
        }
    }
}

/// Where a firmware update is.
public struct DFUProgress: Sendable, Equatable {
    public enum Phase: Sendable, Equatable {
        /// Looking for `DfuTarg` (attempt 1 is the first connection).
        case connecting(attempt: Int)
        case sendingInitPacket
        /// Continuing an update a lost link interrupted, from this many bytes.
        case resuming(from: Int)
        case sendingFirmware
        /// Every byte is in; the bootloader checks the image and restarts into it.
        case done
    }

    public var phase: Phase
    /// Firmware bytes the bootloader has accepted (executed objects).
    public var bytesSent: Int
    public var totalBytes: Int

    public var fraction: Double { totalBytes == 0 ? 0 : Double(bytesSent) / Double(totalBytes) }
}

/// Sends a firmware package to glasses in their bootloader, by Nordic Secure DFU.
///
/// The init packet goes first as the command object; then the image in data objects of the size
/// the bootloader names. Every object is checked by CRC-32 before it is executed, and sent again
/// when it arrived damaged. A lost link is reconnected and the update resumes where the bootloader
/// says it stands (it keeps what was executed and reports the offset and CRC of what it holds).
/// Packet-receipt notifications pace the writes, since writes without response have no flow control.
public actor SecureDFUClient {
    public struct Options: Sendable {
        /// A checksum notification after every this many packets (0: none).
        public var receiptInterval: UInt16 = 10
        /// How long to wait for an answer to a request.
        public var responseTimeout: Duration = .seconds(10)
        /// How long the last execute may take (the bootloader verifies the whole image).
        public var finalExecuteTimeout: Duration = .seconds(30)
        /// How long to look for `DfuTarg` on each connection attempt (the glasses take seconds to restart into it).
        public var findTimeout: Duration = .seconds(20)
        /// Sends of one object before giving up on it.
        public var objectAttempts = 3
        /// New links after a lost one before giving up.
        public var reconnects = 5
        public var reconnectDelay: Duration = .milliseconds(500)

        public init() {}
    }

    private let transport: any DFUTransport
    private let options: Options
    private var inbox: [DFUTransportEvent] = []
    private var waiter: (id: Int, continuation: CheckedContinuation<DFUTransportEvent, any Error>)?
    private var waiterSerial = 0
    private var consumer: Task<Void, Never>?
    private var writeLength = 20

    /// The client consumes `transport.events` from the first `update` on; give it a transport of its own.
    public init(transport: any DFUTransport, options: Options = Options()) {
        self.transport = transport
        self.options = options
    }

    deinit {
        consumer?.cancel()
    }

    /// Installs the package; returns once the bootloader has accepted the whole image (it then
    /// restarts the glasses into it).
    public func update(_ package: DFUPackage, progress: @escaping @Sendable (DFUProgress) async -> Void = { _ in }) async throws {
        startConsuming()
        let total = package.firmware.count
        // Bytes the bootloader is known to hold: a reconnection doesn't take the progress back to zero.
        let accepted = Mutex(0)
        let progress: @Sendable (DFUProgress) async -> Void = { report in
            accepted.withLock { $0 = max($0, report.bytesSent) }
            await progress(report)
        }
        var attempt = 1
        while true {
            do {
                await progress(DFUProgress(phase: .connecting(attempt: attempt), bytesSent: accepted.withLock { $0 }, totalBytes: total))
                try await connectLink()
                if options.receiptInterval > 0 {
                    _ = try await request(.setReceiptNotification(options.receiptInterval))
                }
                await progress(DFUProgress(phase: .sendingInitPacket, bytesSent: accepted.withLock { $0 }, totalBytes: total))
                try await sendInitPacket(package.initPacket)
                try await sendFirmware(package.firmware, progress: progress)
                await progress(DFUProgress(phase: .done, bytesSent: total, totalBytes: total))
                await transport.disconnect()
                return
            } catch let error as DFUError where error.isLinkProblem {
                guard attempt <= options.reconnects else {
                    await transport.disconnect()
                    throw DFUError.gaveUp(after: attempt, lastError: error.localizedDescription)
                }
                attempt += 1
                await transport.disconnect()
                try await Task.sleep(for: options.reconnectDelay)
            } catch {
                await transport.disconnect()
                throw error
            }
        }
    }

    // MARK: The link

    private func startConsuming() {
        guard consumer == nil else { return }
        let events = transport.events
        consumer = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.deliver(event)
            }
        }
    }

    private func deliver(_ event: DFUTransportEvent) {
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: event)
        } else {
            inbox.append(event)
        }
    }

    /// The next link event, or a timeout.
    private func nextEvent(waitingFor what: String, timeout: Duration) async throws -> DFUTransportEvent {
        if !inbox.isEmpty { return inbox.removeFirst() }
        waiterSerial += 1
        let id = waiterSerial
        let timer = Task {
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            self.expire(id, DFUError.timeout(waitingFor: what, after: timeout))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiter = (id, continuation)
            }
        } onCancel: {
            Task { await self.expire(id, CancellationError()) }
        }
    }

    private func expire(_ id: Int, _ error: any Error) {
        guard let waiter, waiter.id == id else { return }
        self.waiter = nil
        waiter.continuation.resume(throwing: error)
    }

    private func connectLink() async throws {
        inbox.removeAll()
        let deadline = ContinuousClock.now + options.findTimeout
        var lastError = "nothing answered"
        while true {
            do {
                try await transport.connect()
                break
            } catch {
                lastError = error.localizedDescription
                guard ContinuousClock.now < deadline else { throw DFUError.bootloaderNotFound(lastError) }
                try await Task.sleep(for: .milliseconds(300))
            }
        }
        while true {
            switch try await nextEvent(waitingFor: "the DFU service", timeout: options.responseTimeout) {
            case .connected(let length):
                writeLength = max(length, 20)
                return
            case .disconnected, .notification:
                // Left over from the earlier link: events come in order, so anything before this
                // link's `.connected` belongs to the one before it.
                continue
            }
        }
    }

    /// Writes a request and waits for its answer (skipping stale notifications); a refusal throws.
    @discardableResult
    private func request(_ request: SecureDFU.Request, timeout: Duration? = nil) async throws -> SecureDFU.Response {
        inbox.removeAll { if case .notification = $0 { true } else { false } }
        try await write { try await self.transport.writeControl(request.bytes) }
        while true {
            switch try await nextEvent(waitingFor: "an answer to \(request)", timeout: timeout ?? options.responseTimeout) {
            case .notification(let bytes):
                guard let response = SecureDFU.Response(bytes: bytes), response.opcode == request.opcode else { continue }
                guard response.result == .success else { throw DFUError.rejected(request: request.description, reason: response.reason) }
                return response
            case .disconnected(let reason):
                throw DFUError.disconnected(reason)
            case .connected:
                continue
            }
        }
    }

    /// A write that fails because the link is gone is a lost link, not a refusal.
    private func write(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as DFUError {
            throw error
        } catch {
            throw DFUError.disconnected(error.localizedDescription)
        }
    }

    // MARK: Objects

    private func sendInitPacket(_ initPacket: Data) async throws {
        let selected = try await request(.select(.command)).selection
        if let selected, Int(selected.offset) == initPacket.count, selected.crc == SecureDFU.crc32(initPacket) {
            // Sent in full before the link dropped: executing it again is harmless and keeps the bootloader's progress.
            try await request(.execute)
            return
        }
        if let selected, Int(selected.maximumSize) < initPacket.count {
            throw DFUError.rejected(request: "take the init packet", reason: "it has \(initPacket.count) bytes and the bootloader takes at most \(selected.maximumSize)")
        }
        try await sendObject(.command, of: initPacket, range: 0..<initPacket.count, finalExecute: false)
    }

    private func sendFirmware(_ firmware: Data, progress: @Sendable (DFUProgress) async -> Void) async throws {
        guard let selected = try await request(.select(.data)).selection, selected.maximumSize > 0 else {
            throw DFUError.rejected(request: "select the firmware object", reason: "its answer has no object size")
        }
        let objectSize = Int(selected.maximumSize)
        var offset = Int(selected.offset)
        if offset > 0 {
            if offset <= firmware.count, SecureDFU.crc32(firmware.prefix(offset)) == selected.crc {
                await progress(DFUProgress(phase: .resuming(from: offset), bytesSent: offset, totalBytes: firmware.count))
                if offset % objectSize == 0 {
                    // The last object arrived whole; it may not have been executed before the link dropped.
                    do {
                        try await request(.execute, timeout: offset == firmware.count ? options.finalExecuteTimeout : nil)
                    } catch DFUError.rejected where offset < firmware.count {
                        // Already executed.
                    }
                } else {
                    // Finish the object the link dropped in, without creating it again.
                    let end = min((offset / objectSize + 1) * objectSize, firmware.count)
                    try await finishObject(.data, of: firmware, range: offset..<end, finalExecute: end == firmware.count)
                    offset = end
                }
            } else if offset % objectSize != 0 {
                offset = offset / objectSize * objectSize // the partial object is damaged: it is sent again
            } else {
                throw DFUError.rejected(request: "resume", reason: "it holds part of another image; restart the glasses and try again")
            }
        }
        await progress(DFUProgress(phase: .sendingFirmware, bytesSent: offset, totalBytes: firmware.count))
        while offset < firmware.count {
            let end = min(offset + objectSize, firmware.count)
            try await sendObject(.data, of: firmware, range: offset..<end, finalExecute: end == firmware.count)
            offset = end
            await progress(DFUProgress(phase: .sendingFirmware, bytesSent: offset, totalBytes: firmware.count))
        }
    }

    /// Creates an object, sends it, and executes it once its CRC matches; sends it again when it doesn't.
    private func sendObject(_ type: SecureDFU.ObjectType, of whole: Data, range: Range<Int>, finalExecute: Bool) async throws {
        for attempt in 1...max(options.objectAttempts, 1) {
            try await request(.create(type, size: UInt32(range.count)))
            do {
                try await finishObject(type, of: whole, range: range, finalExecute: finalExecute)
                return
            } catch DFUError.checksumMismatch where attempt < options.objectAttempts {
                continue // a damaged packet is discarded with its object: create it again
            }
        }
    }

    /// Sends the rest of the current object (`range` of `whole`), checks its CRC and executes it.
    private func finishObject(_ type: SecureDFU.ObjectType, of whole: Data, range: Range<Int>, finalExecute: Bool) async throws {
        let what = type == .command ? "init packet" : "firmware object at byte \(range.lowerBound)"
        var sent = range.lowerBound
        var packets = 0
        for piece in whole[range].pieces(of: writeLength) {
            try await write { try await self.transport.writePacket(piece) }
            sent += piece.count
            packets += 1
            // The bootloader sends receipts for firmware packets only.
            if type == .data, options.receiptInterval > 0, packets % Int(options.receiptInterval) == 0, sent < range.upperBound {
                try await awaitReceipt(of: whole, upTo: sent, what: what)
            }
        }
        guard let sum = try await request(.calculateChecksum).checksum else {
            throw DFUError.rejected(request: "calculate the checksum", reason: "its answer has no checksum")
        }
        guard Int(sum.offset) == range.upperBound, sum.crc == SecureDFU.crc32(whole.prefix(range.upperBound)) else {
            throw DFUError.checksumMismatch(what)
        }
        try await request(.execute, timeout: finalExecute ? options.finalExecuteTimeout : nil)
    }

    /// Waits for the packet-receipt notification and checks that what arrived is what was sent.
    private func awaitReceipt(of whole: Data, upTo sent: Int, what: String) async throws {
        while true {
            switch try await nextEvent(waitingFor: "a packet receipt", timeout: options.responseTimeout) {
            case .notification(let bytes):
                guard let response = SecureDFU.Response(bytes: bytes), response.opcode == SecureDFU.Request.checksumCode,
                      let sum = response.checksum else { continue }
                // The receipt may lag the writes; what it covers must match what was sent.
                guard Int(sum.offset) <= sent, sum.crc == SecureDFU.crc32(whole.prefix(Int(sum.offset))) else { throw DFUError.checksumMismatch(what) }
                return
            case .disconnected(let reason):
                throw DFUError.disconnected(reason)
            case .connected:
                continue
            }
        }
    }
}
