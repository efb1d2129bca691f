public import SibylCore

/// A type a setting holds: how its value is read from the text the config file, the environment
/// and `sibyl config set` carry, and how it is written back.
public protocol SettingValue: Sendable {
    /// The value a text stands for; nil when the text does not parse (the setting's default applies).
    init?(settingText: String)
    /// The value as the config file keeps it.
    var settingText: String { get }
    /// How `sibyl config set` checks a value.
    static var valueType: ConfigKey.ValueType { get }
    /// The allowed values of a choice, in the order they are offered; empty for other types.
    static var choices: [String] { get }
    /// Other words `sibyl config set` and the settings API take for a choice (lowercased), with
    /// the choice each stands for.
    static var choiceAliases: [String: String] { get }
}

extension SettingValue {
    public static var choices: [String] { [] }
    public static var choiceAliases: [String: String] { [:] }
}

extension String: SettingValue {
    public init?(settingText: String) { self = settingText }
    public var settingText: String { self }
    public static var valueType: ConfigKey.ValueType { .string }
}

extension Int: SettingValue {
    /// Whole numbers from 0 up, as `sibyl config set` accepts them.
    public init?(settingText: String) {
        guard let value = Int(settingText.trimmingCharacters(in: .whitespaces)), value >= 0 else { return nil }
        self = value
    }

    public var settingText: String { String(self) }
    public static var valueType: ConfigKey.ValueType { .integer }
}

extension Double: SettingValue {
    public init?(settingText: String) {
        guard let value = Double(settingText.trimmingCharacters(in: .whitespaces)), value.isFinite else { return nil }
        self = value
    }

    /// Whole numbers without a fraction (`1`, not `1.0`), as people write them.
    public var settingText: String {
        rounded() == self && abs(self) < 1e15 ? String(Int(self)) : String(self)
    }

    public static var valueType: ConfigKey.ValueType { .number }
}

/// A switch, written `on` or `off`.
extension Bool: SettingValue {
    public init?(settingText: String) {
        switch settingText.trimmingCharacters(in: .whitespaces).lowercased() {
        case "on": self = true
        case "off": self = false
        default: return nil
        }
    }

    public var settingText: String { self ? "on" : "off" }
    public static var valueType: ConfigKey.ValueType { .choice }
    public static var choices: [String] { ["on", "off"] }
}

/// A setting with no default: nil until it is set.
extension Optional: SettingValue where Wrapped: SettingValue {
    public init?(settingText: String) {
        guard let value = Wrapped(settingText: settingText) else { return nil }
        self = .some(value)
    }

    public var settingText: String { map(\.settingText) ?? "" }
    public static var valueType: ConfigKey.ValueType { Wrapped.valueType }
    public static var choices: [String] { Wrapped.choices }
    public static var choiceAliases: [String: String] { Wrapped.choiceAliases }
}

/// Languages tesseract reads, written `en, ko` or `eng+kor`; kept as tesseract's codes.
extension OCRLanguages: SettingValue {
    public init?(settingText: String) { self.init(settingText) }
    public var settingText: String { description }
    public static var valueType: ConfigKey.ValueType { .languages }
}

/// MCP servers, written `NAME=COMMAND; NAME=URL`.
extension ToolServerList: SettingValue {
    public init?(settingText: String) { self.init(settingText) }
    public var settingText: String { description }
    public static var valueType: ConfigKey.ValueType { .toolServers }
}

/// One of a few named values: an enum whose raw values are the words the settings use.
public protocol SettingChoice: SettingValue, RawRepresentable<String>, CaseIterable {}

extension SettingChoice {
    public init?(settingText: String) { self.init(rawValue: settingText.trimmingCharacters(in: .whitespaces)) }
    public var settingText: String { rawValue }
    public static var valueType: ConfigKey.ValueType { .choice }
    public static var choices: [String] { allCases.map(\.rawValue) }
}

extension GlassesKind: SettingChoice {}
extension IndexChoice: SettingChoice {}
extension FusionMethod: SettingChoice {}
extension VectorStoreKind: SettingChoice {}
extension TitleStyle: SettingChoice {}
extension VoiceDetectorKind: SettingChoice {}
extension AuthSetting: SettingChoice {}
extension ProviderPreference: SettingChoice {}
/// A local model is also set by its model's or component's name, kept as the choice's own word.
extension SettingChoice where Self: LocalModelChoice {
    public init?(settingText: String) {
        guard let model = Self.named(settingText) else { return nil }
        self = model
    }

    public static var choiceAliases: [String: String] {
        Dictionary(uniqueKeysWithValues: allCases.flatMap { [($0.name.lowercased(), $0.rawValue), ($0.component, $0.rawValue)] })
    }
}

extension LocalChatModel: SettingChoice {}
extension LocalEmbeddingModel: SettingChoice {}

/// One or more API roots (`http://127.0.0.1:8080/v1`), used in turn with failover.
public struct EndpointList: SettingValue, Hashable {
    /// The roots, in the order they are tried.
    public var urls: [String]

    public init?(settingText: String) {
        let urls = settingText.split(whereSeparator: { $0 == "," || $0.isWhitespace }).map(String.init)
        guard !urls.isEmpty else { return nil }
        self.urls = urls
    }

    public var settingText: String { urls.joined(separator: ", ") }
    public static var valueType: ConfigKey.ValueType { .url }
}
