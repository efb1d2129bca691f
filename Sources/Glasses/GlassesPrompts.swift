/// The words Sibyl's apps show on the glasses by themselves (prompts, states, their own errors), in
/// the wearer's language.
///
/// The glasses draw text with their own fonts, which hold Latin letters only (Monocle's and Frame's
/// built-in fonts): languages written in Latin letters get their words (English, Indonesian), others
/// (Korean) get English prompts on the glasses while the answers, which Sibyl draws, stay in the
/// wearer's language where the glasses can show them.
public struct GlassesPrompts: Sendable, Equatable {
    /// The idle prompt: Monocle "Tap to speak", Frame "Tap to ask".
    public var tapToSpeak: String
    public var tapToAsk: String
    /// While the touch is held on Monocle.
    public var holdForPhoto: String
    /// "Sending photo" (the kilobytes sent follow).
    public var sendingPhoto: String
    public var listening: String
    public var listeningForPhoto: String
    public var thinking: String
    public var takingPhoto: String
    public var cancelled: String
    public var noAnswer: String
    public var captions: String
    public var captionsPaused: String
    /// Monocle before a phone connects.
    public var openSibyl: String
    public var welcome: String
    /// An error in the app on the glasses.
    public var somethingWentWrong: String
    public var tapToTryAgain: String
    /// Speech-to-text heard nothing.
    public var didNotCatch: String

    public static let english = GlassesPrompts(
        tapToSpeak: "Tap to speak", tapToAsk: "Tap to ask", holdForPhoto: "Hold for a photo", sendingPhoto: "Sending photo",
        listening: "Listening", listeningForPhoto: "Listening (photo)", thinking: "Thinking", takingPhoto: "Taking a photo",
        cancelled: "Cancelled", noAnswer: "No answer came. Tap to ask again.", captions: "Captions: tap to pause",
        captionsPaused: "Paused: tap to resume", openSibyl: "Open Sibyl to connect", welcome: "Welcome to Sibyl.",
        somethingWentWrong: "Something went wrong on the glasses.", tapToTryAgain: "Tap to try again.",
        didNotCatch: "I didn't catch that. Tap and speak again."
    )

    public static let indonesian = GlassesPrompts(
        tapToSpeak: "Ketuk untuk bicara", tapToAsk: "Ketuk untuk bertanya", holdForPhoto: "Tahan untuk foto", sendingPhoto: "Mengirim foto",
        listening: "Mendengarkan", listeningForPhoto: "Mendengarkan (foto)", thinking: "Berpikir", takingPhoto: "Mengambil foto",
        cancelled: "Dibatalkan", noAnswer: "Tidak ada jawaban. Ketuk untuk bertanya lagi.", captions: "Teks: ketuk untuk jeda",
        captionsPaused: "Dijeda: ketuk untuk lanjut", openSibyl: "Buka Sibyl untuk menyambung", welcome: "Selamat datang di Sibyl.",
        somethingWentWrong: "Ada yang salah di kacamata.", tapToTryAgain: "Ketuk untuk mencoba lagi.",
        didNotCatch: "Saya tidak menangkapnya. Ketuk dan bicara lagi."
    )

    /// The prompts for a language (an ISO 639-1 code or a locale such as `id-ID`); English for those
    /// the glasses cannot write, or none.
    public static func forLanguage(_ language: String?) -> GlassesPrompts {
        let base = language?.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first.map(String.init)
        switch base {
        case "id", "in": return .indonesian
        default: return .english
        }
    }
}
