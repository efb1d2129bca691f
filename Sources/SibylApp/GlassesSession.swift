public import Assistant
public import Foundation
public import FrameGlasses
public import Glasses
public import Monocle
import SibylConfig
public import SibylCore

/// How a glasses session answers: the settings' choices unless given here.
public struct GlassesSessionOptions: Sendable {
    /// The persona; nil means `glasses.persona` (normally `concise`).
    public var persona: String?
    /// Translate whatever the wearer says into this language; nil means `glasses.translate_to`.
    public var translateTo: String?
    /// The language the wearer speaks; nil means `glasses.language`.
    public var language: String?
    /// Answer from the wearer's documents; nil means all of them when `glasses.documents` is on.
    public var documents: DocumentScope?
    /// The vision model for photo questions; nil means `glasses.vision_model`.
    public var visionModel: String?
    /// How the connection reconnects, and a firmware package to install.
    public var connection: GlassesConnection.Options
    /// Monocle's driver: an FPGA image to write, timeouts, the expected firmware.
    public var monocle: MonocleDriver.Options
    /// Frame's driver: timeouts, the expected firmware.
    public var frame: FrameDriver.Options
    /// The Monocle app to keep on the glasses instead of Sibyl's (an author's, with `--scripts`).
    public var monocleApp: DeviceApp?
    /// How close Frame taps must be (on Frame's clock) to make one gesture: a double tap.
    public var frameTapWindow: Duration = .milliseconds(300)
    /// The language of the wearer's surroundings (the terminal's, the page's): what is spoken when
    /// neither `language` nor the settings say, instead of detecting it on every question.
    public var languageHint: String?

    public init(
        persona: String? = nil, translateTo: String? = nil, language: String? = nil, documents: DocumentScope? = nil, visionModel: String? = nil,
        connection: GlassesConnection.Options = GlassesConnection.Options(), monocle: MonocleDriver.Options = MonocleDriver.Options(),
        frame: FrameDriver.Options = FrameDriver.Options(), monocleApp: DeviceApp? = nil
    ) {
        self.persona = persona
        self.translateTo = translateTo
        self.language = language
        self.documents = documents
        self.visionModel = visionModel
        self.connection = connection
        self.monocle = monocle
        self.frame = frame
        self.monocleApp = monocleApp
    }
}

extension GlassesConnection {
    /// A connection that keeps Sibyl's app (on Monocle, `options.monocleApp` when given) on
    /// glasses of `kind` reached through `transport`.
    public static func sibyl(kind: GlassesKind, transport: any GlassesTransport, options: GlassesSessionOptions = GlassesSessionOptions()) throws -> GlassesConnection {
        let driver: any GlassesDriver = switch kind {
        case .monocle: MonocleDriver(app: try options.monocleApp ?? DeviceApp.sibyl(), options: options.monocle)
        case .frame: FrameDriver(app: .sibyl(), options: options.frame, wearer: SibylFrameWearer(tapWindow: options.frameTapWindow))
        }
        return GlassesConnection(transport: transport, driver: driver, options: options.connection)
    }
}

/// Glasses linked to Sibyl: the connection that keeps their app running, and the assistant that
/// answers what the wearer asks. The same for Monocle and Frame, virtual, over Bluetooth or
/// through the Web Bluetooth relay.
public final class GlassesSession: Sendable {
    /// The glasses' connection.
    public let connection: GlassesConnection
    /// What answers the wearer.
    public let assistant: GlassesAssistant
    /// Writes a question's outcome to the operations log.
    private let record: @Sendable (GlassesEvent) async -> Void

    init(connection: GlassesConnection, assistant: GlassesAssistant, record: @escaping @Sendable (GlassesEvent) async -> Void = { _ in }) {
        self.connection = connection
        self.assistant = assistant
        self.record = record
    }

    /// Serves the glasses until `stop()` (or the connection's end), reporting what happens; each
    /// question answered or failed also goes to the operations log, with its stage times.
    public func run(observer: @escaping @Sendable (GlassesEvent) -> Void = { _ in }) async {
        let (outcomes, sink) = AsyncStream<GlassesEvent>.makeStream()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.connection.run() }
            group.addTask {
                await self.assistant.run { event in
                    observer(event)
                    switch event {
                    case .answered, .failed: sink.yield(event)
                    default: break
                    }
                }
                sink.finish()
            }
            group.addTask { for await event in outcomes { await self.record(event) } }
        }
    }

    /// Disconnects and ends `run()`.
    public func stop() async {
        await connection.stop()
    }

    /// The conversation the exchanges are saved in, once the wearer asked something.
    public var conversation: UUID? {
        get async { await assistant.conversation }
    }
}

