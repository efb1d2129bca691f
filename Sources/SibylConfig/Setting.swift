import SibylCore

/// A setting Sibyl understands, typed: its key (name, environment variables, summary, where it is
/// kept) and its default, declared once (see `Setting+Catalog.swift`). Read it with
/// `settings[.servePort]`; a misspelt name does not compile.
public struct Setting<Value: SettingValue>: Sendable {
    /// What shells show and `sibyl config set` checks against.
    public let key: ConfigKey
    /// The value when nothing sets it, or when what sets it does not parse.
    public let defaultValue: Value

    /// Declares a setting; `type` overrides the value type's own check (an `.url` string).
    init(
        _ name: String, env: [String] = [], default defaultValue: Value, scope: ConfigKey.Scope = .shared,
        type: ConfigKey.ValueType? = nil, _ summary: String
    ) {
        let text = defaultValue.settingText
        key = ConfigKey(
            name, type ?? Value.valueType, env: env, default: text.isEmpty ? nil : text, choices: Value.choices, aliases: Value.choiceAliases, scope: scope, summary
        )
        self.defaultValue = defaultValue
    }

    /// The setting's dotted name.
    public var name: String { key.name }
}

extension Settings {
    /// A setting's value: the environment over the config file (or the shared database) over the
    /// default; a value that does not parse counts as unset.
    public subscript<Value>(_ setting: Setting<Value>) -> Value {
        guard let text = resolve(setting.key).value, let value = Value(settingText: text) else { return setting.defaultValue }
        return value
    }

    /// Where a setting's value comes from now.
    public func source<Value>(of setting: Setting<Value>) -> SettingSource {
        resolve(setting.key).source
    }
}
