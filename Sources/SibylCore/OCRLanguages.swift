/// The languages scanned pages and images are read in, as tesseract names its trained data
/// (`eng`, `kor`, `ind`, `chi_sim` …). People may write them as language codes (`en`, `ko`, `id`)
/// or names (`English`, `Korean`, `Indonesian`), separated by commas, spaces or `+`.
public struct OCRLanguages: Sendable, Hashable, CustomStringConvertible {
    /// tesseract's codes, in the order given, without repeats.
    public let codes: [String]

    /// English only: what tesseract reads when nothing else is asked for.
    public static let english = OCRLanguages(checked: ["eng"])

    /// The languages Sibyl's own interface speaks, whose trained data `sibyl models install ocr` installs.
    public static let installed: [(code: String, language: String)] = [("eng", "en"), ("kor", "ko"), ("ind", "id")]

    private init(checked codes: [String]) { self.codes = codes }

    /// The languages `text` names; nil when it names none or something that is not a language.
    public init?(_ text: String) {
        var codes: [String] = []
        for word in text.split(whereSeparator: { $0 == "," || $0 == "+" || $0.isWhitespace }) {
            guard let code = Self.code(for: String(word)) else { return nil }
            if !codes.contains(code) { codes.append(code) }
        }
        guard !codes.isEmpty else { return nil }
        self.codes = codes
    }

    /// Korean, Chinese and Japanese, whose words tesseract spaces differently.
    public static let eastAsian: Set<String> = ["kor", "kor_vert", "jpn", "jpn_vert", "chi_sim", "chi_sim_vert", "chi_tra", "chi_tra_vert"]

    /// What tesseract's `-l` takes: the codes joined with `+`, East Asian ones first. tesseract
    /// spaces words as its first language does: read as `eng+kor`, a Korean line came out one
    /// syllable at a time ("한 강 이 도 시 를"); as `kor+eng`, as written, English lines too.
    public var tesseractArgument: String {
        (codes.filter { Self.eastAsian.contains($0) } + codes.filter { !Self.eastAsian.contains($0) }).joined(separator: "+")
    }

    public var description: String { codes.joined(separator: ",") }

    /// tesseract's code for one language as a person may write it.
    static func code(for word: String) -> String? {
        let lowered = word.lowercased()
        let aliases = [
            "en": "eng", "english": "eng", "ko": "kor", "korean": "kor", "한국어": "kor",
            "id": "ind", "indonesian": "ind", "bahasa": "ind",
        ]
        if let code = aliases[lowered] { return code }
        // Trained data names: three letters, with a script or variant after an underscore.
        return lowered.wholeMatch(of: /[a-z]{3}(_[a-z]+)?/) != nil ? lowered : nil
    }
}
