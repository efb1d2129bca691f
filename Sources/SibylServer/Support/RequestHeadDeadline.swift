import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// Closes a connection whose first request head has not fully arrived within the deadline.
///
/// Hummingbird's idle timer covers a connection from its first request head on; before that,
/// the WebSocket-upgrade channel waits for a head however slowly it trickles in, so a client could
/// hold connections open for ever a byte at a time (slowloris). This handler sits in front of the
/// HTTP decoder, watches the raw bytes for the blank line that ends the head, and gives up on the
/// connection if it does not come in time; after that it only passes bytes on.
final class RequestHeadDeadline: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private let deadline: TimeAmount
    private var timer: Scheduled<Void>?
    private var headEnded = false
    /// The last bytes seen, so that a CR LF CR LF split across reads is still found.
    private var tail: [UInt8] = []

    init(deadline: TimeAmount) {
        self.deadline = deadline
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !headEnded {
            let bytes = tail + Array(unwrapInboundIn(data).readableBytesView)
            if Self.containsHeadEnd(bytes) {
                headEnded = true
                timer?.cancel()
                tail = []
            } else {
                tail = Array(bytes.suffix(3))
            }
        }
        context.fireChannelRead(data)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil, !headEnded else { return }
        let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: deadline) { loopBound.value.close(promise: nil) }
    }

    static func containsHeadEnd(_ bytes: [UInt8]) -> Bool {
        guard bytes.count >= 4 else { return false }
        for index in 0...(bytes.count - 4) where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return true
        }
        return false
    }
}

/// A server child channel with `RequestHeadDeadline` at the front of its pipeline.
struct HeadDeadlineChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let deadline: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            // After TLS, when there is TLS (it reads plain bytes), and before the HTTP handlers the base adds.
            try channel.pipeline.syncOperations.addHandler(RequestHeadDeadline(deadline: deadline), position: .last)
        }.flatMap { base.setup(channel: channel, logger: logger) }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}
