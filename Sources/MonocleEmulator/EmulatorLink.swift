import Foundation
import NIOCore
import NIOPosix

/// The loopback socket the interpreter's firmware stubs connect to.
final class EmulatorLink: Sendable {
    private let server: any Channel
    let port: Int

    /// Listens on 127.0.0.1; `onConnect` gets each interpreter's channel, `onFrame` its frames in order.
    init(
        onConnect: @escaping @Sendable (any Channel) -> Void,
        onFrame: @escaping @Sendable (ObjectIdentifier, EmulatorFrame) -> Void,
        onClose: @escaping @Sendable (ObjectIdentifier) -> Void
    ) async throws {
        let bootstrap = ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(EmulatorFrameDecoder()))
                    try channel.pipeline.syncOperations.addHandler(FrameHandler(onFrame: onFrame, onClose: onClose))
                    onConnect(channel)
                }
            }
        server = try await bootstrap.bind(host: "127.0.0.1", port: 0).get()
        port = server.localAddress?.port ?? 0
    }

    func close() async {
        try? await server.close()
    }

    static func send(_ frame: EmulatorFrame, on channel: any Channel) {
        var buffer = channel.allocator.buffer(capacity: frame.payload.count + 5)
        frame.write(to: &buffer)
        channel.writeAndFlush(buffer, promise: nil)
    }

    private final class FrameHandler: ChannelInboundHandler, Sendable {
        typealias InboundIn = EmulatorFrame
        let onFrame: @Sendable (ObjectIdentifier, EmulatorFrame) -> Void
        let onClose: @Sendable (ObjectIdentifier) -> Void

        init(onFrame: @escaping @Sendable (ObjectIdentifier, EmulatorFrame) -> Void, onClose: @escaping @Sendable (ObjectIdentifier) -> Void) {
            self.onFrame = onFrame
            self.onClose = onClose
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            onFrame(ObjectIdentifier(context.channel), unwrapInboundIn(data))
        }

        func channelInactive(context: ChannelHandlerContext) {
            onClose(ObjectIdentifier(context.channel))
            context.fireChannelInactive()
        }
    }
}
