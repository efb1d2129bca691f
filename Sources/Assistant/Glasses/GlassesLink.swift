import Foundation
import FrameGlasses
import Monocle

/// Where the linked glasses are, whichever kind they are.
public enum GlassesLinkState: Sendable, Hashable, CustomStringConvertible {
    case monocle(MonocleState)
    case frame(FrameState)

    /// `monocle` or `frame`.
    public var kind: String {
        switch self {
        case .monocle: "monocle"
        case .frame: "frame"
        }
    }

    /// A short name for logs and tests (`running`, `disconnected`, …).
    public var name: String {
        switch self {
        case .monocle(let state): state.name
        case .frame(let state): state.name
        }
    }

    public var description: String {
        switch self {
        case .monocle(let state): state.description
        case .frame(let state): state.description
        }
    }

    public var isDisconnected: Bool { name == "disconnected" }
    public var isRunning: Bool { name == "running" }
}

/// What a link reports to the assistant, in order.
public enum GlassesLinkEvent: Sendable {
    case state(GlassesLinkState)
    case notice(String)
    /// The glasses started sending a recording or a photo.
    case transferStarted
    case request(GlassesRequest)
}

/// Linked glasses as the assistant sees them: requests come in, text goes out.
public protocol GlassesLink: Sendable {
    /// What happens, in order. One consumer.
    var events: AsyncStream<GlassesLinkEvent> { get }
    /// Keeps the glasses' app running until `stop()`; `events` ends with it.
    func run() async
    /// Disconnects for good.
    func stop() async
    /// Shows an answer, or an error in red.
    func show(_ text: String, isError: Bool) async throws
    /// Tells the glasses the question is being answered.
    func showThinking() async
}

/// Monocle glasses behind their controller.
public final class MonocleGlassesLink: GlassesLink {
    public let controller: MonocleController
    public let events: AsyncStream<GlassesLinkEvent>
    private let continuation: AsyncStream<GlassesLinkEvent>.Continuation

    public init(controller: MonocleController) {
        self.controller = controller
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.controller.run() }
            group.addTask { await self.forward() }
        }
    }

    private func forward() async {
        var assembler = GlassesRequestAssembler()
        for await event in controller.events {
            switch event {
            case .state(let state):
                if case .disconnected = state { assembler = GlassesRequestAssembler() }
                continuation.yield(.state(.monocle(state)))
            case .notice(let text):
                continuation.yield(.notice(text))
            case .updateFailed(let reason):
                continuation.yield(.notice("the firmware update failed: \(reason)"))
            case .message(let message):
                if message.command == .audioStart || message.command == .imageStart { continuation.yield(.transferStarted) }
                if let request = assembler.consume(message) { continuation.yield(.request(request)) }
            }
        }
        continuation.finish()
    }

    public func stop() async {
        await controller.stop()
    }

    public func show(_ text: String, isError: Bool) async throws {
        try await controller.show(text, as: isError ? .error : .response)
    }

    public func showThinking() async {
        try? await controller.send(AppMessage(.ping, Data(String(UUID().uuidString.prefix(8)).utf8)))
    }
}

/// Frame glasses running Sibyl's Frame app, behind their controller and the wearer's tap logic.
public final class FrameGlassesLink: GlassesLink {
    public let controller: FrameController
    public let wearer: SibylFrameWearer
    public let events: AsyncStream<GlassesLinkEvent>
    private let continuation: AsyncStream<GlassesLinkEvent>.Continuation

    public init(controller: FrameController) {
        self.controller = controller
        wearer = SibylFrameWearer(controller: controller)
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.controller.run() }
            group.addTask { await self.wearer.run() }
            group.addTask { await self.forward() }
        }
    }

    private func forward() async {
        for await event in wearer.events {
            switch event {
            case .state(let state): continuation.yield(.state(.frame(state)))
            case .notice(let text): continuation.yield(.notice(text))
            case .transferStarted: continuation.yield(.transferStarted)
            case .request(.spoken(let audio)): continuation.yield(.request(.spoken(audio: audio)))
            case .request(.photo(let jpeg, let audio)): continuation.yield(.request(.photo(jpeg: jpeg, audio: audio)))
            case .request(.cancel): continuation.yield(.request(.cancel))
            }
        }
        continuation.finish()
    }

    public func stop() async {
        await controller.stop()
    }

    public func show(_ text: String, isError: Bool) async throws {
        try await wearer.show(text, isError: isError)
    }

    public func showThinking() async {
        await wearer.showThinking()
    }
}
