/// A device app in the style of frame-msg's examples, on its unmodified libraries: it parses plain
/// text (0x0A), codes (0x0B) and capture settings (0x0D), draws each text, takes a photo with each
/// capture settings, and prints `ready` once it runs. What it does with codes, and with the audio
/// stream on each pass of its loop, is each test's own.
public enum FrameMsgApp {
    /// The frame-msg libraries the app requires.
    public static let libraries = ["data", "plain_text", "code", "camera", "audio"]

    /// The app's Lua source. It requires the libraries' `suffix` files ("" or ".min"); `state`
    /// declares its own locals; `afterText` runs once a text is shown (the message is `text`),
    /// `onCode` for each code message (`c`), and `eachPass` on every pass of its loop.
    public static func source(suffix: String, state: String, afterText: String = "", onCode: String, eachPass: String) -> String {
        /// `code`'s lines, indented by `depth` levels of two spaces.
        func block(_ code: String, _ depth: Int) -> [String] {
            code.split(separator: "\n").map { String(repeating: "  ", count: depth) + $0 }
        }
        var lines = libraries.map { "local \($0) = require('\($0)\(suffix)')" }
        lines += [
            "local TEXT, CODE, CAPTURE = 0x0A, 0x0B, 0x0D",
            "data.parsers[TEXT] = plain_text.parse_plain_text",
            "data.parsers[CODE] = code.parse_code",
            "data.parsers[CAPTURE] = camera.parse_capture_settings",
        ]
        lines += block(state, 0) + ["print('ready')", "while true do", "  local ok, err = pcall(function()"]
        lines += block("""
            if data.process_raw_items() > 0 then
              local text = data.app_data[TEXT]
              if text ~= nil then
                data.app_data[TEXT] = nil
                frame.display.text(text.string, text.x, text.y, {color = text.color, spacing = text.spacing})
                frame.display.show()
            """, 2) + block(afterText, 4)
        lines += block("""
              end
              local c = data.app_data[CODE]
              if c ~= nil then
                data.app_data[CODE] = nil
            """, 2) + block(onCode, 4)
        lines += block("""
              end
              local settings = data.app_data[CAPTURE]
              if settings ~= nil then
                data.app_data[CAPTURE] = nil
                camera.capture_and_send(settings)
              end
            end
            """, 2) + block(eachPass, 2)
        lines += ["    frame.sleep(0.005)", "  end)", "  if not ok then print(err); break end", "end"]
        return lines.joined(separator: "\n")
    }
}
