/// HTML character references: the common named ones and all numeric ones.
enum HTMLEntities {
    /// Decodes `&name;`, `&#NNN;` and `&#xHH;`; unknown references stay as written.
    static func decode<S: StringProtocol>(_ text: S) -> String {
        guard text.utf8.contains(UInt8(ascii: "&")) else { return String(text) }
        let scalars = Array(text.unicodeScalars)
        var output = String.UnicodeScalarView()
        output.reserveCapacity(scalars.count)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            guard scalar == "&", let (decoded, length) = reference(in: scalars, at: index) else {
                output.append(scalar)
                index += 1
                continue
            }
            output.append(contentsOf: decoded.unicodeScalars)
            index += length
        }
        return String(output)
    }

    /// The reference starting at `start` (an `&`): its text and how many scalars it spans.
    private static func reference(in scalars: [Unicode.Scalar], at start: Int) -> (String, Int)? {
        var index = start + 1
        if index < scalars.count, scalars[index] == "#" {
            index += 1
            var radix: UInt32 = 10
            if index < scalars.count, scalars[index] == "x" || scalars[index] == "X" {
                radix = 16
                index += 1
            }
            var value: UInt32 = 0
            var digits = 0
            while index < scalars.count, let digit = hexValue(scalars[index]), digit < radix, digits < 8 {
                value = value * radix + digit
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            if index < scalars.count, scalars[index] == ";" { index += 1 }
            let character = value == 0 ? "\u{FFFD}" : Unicode.Scalar(value).map { String($0) } ?? "\u{FFFD}"
            return (character, index - start)
        }
        var name = ""
        while index < scalars.count, scalars[index].properties.isAlphabetic || ("0"..."9").contains(scalars[index]), name.unicodeScalars.count < 32 {
            name.unicodeScalars.append(scalars[index])
            index += 1
        }
        if index < scalars.count, scalars[index] == ";", let value = named[name] {
            return (value, index + 1 - start)
        }
        // A few references are recognised without their semicolon, as browsers do.
        if let value = legacy[name] { return (value, index - start) }
        return nil
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar {
        case "0"..."9": scalar.value - 48
        case "a"..."f": scalar.value - 87
        case "A"..."F": scalar.value - 55
        default: nil
        }
    }

    private static let legacy: [String: String] = ["amp": "&", "lt": "<", "gt": ">", "quot": "\"", "nbsp": "\u{A0}", "copy": "©", "reg": "®"]

    /// Names for U+00A0…U+00FF, in code point order.
    static let latin1Names = [
        "nbsp", "iexcl", "cent", "pound", "curren", "yen", "brvbar", "sect", "uml", "copy", "ordf", "laquo", "not", "shy", "reg", "macr",
        "deg", "plusmn", "sup2", "sup3", "acute", "micro", "para", "middot", "cedil", "sup1", "ordm", "raquo", "frac14", "frac12", "frac34", "iquest",
        "Agrave", "Aacute", "Acirc", "Atilde", "Auml", "Aring", "AElig", "Ccedil", "Egrave", "Eacute", "Ecirc", "Euml", "Igrave", "Iacute", "Icirc", "Iuml",
        "ETH", "Ntilde", "Ograve", "Oacute", "Ocirc", "Otilde", "Ouml", "times", "Oslash", "Ugrave", "Uacute", "Ucirc", "Uuml", "Yacute", "THORN", "szlig",
        "agrave", "aacute", "acirc", "atilde", "auml", "aring", "aelig", "ccedil", "egrave", "eacute", "ecirc", "euml", "igrave", "iacute", "icirc", "iuml",
        "eth", "ntilde", "ograve", "oacute", "ocirc", "otilde", "ouml", "divide", "oslash", "ugrave", "uacute", "ucirc", "uuml", "yacute", "thorn", "yuml",
    ]

    static let named: [String: String] = {
        var table: [String: String] = [
            "amp": "&", "lt": "<", "gt": ">", "quot": "\"", "apos": "'",
            "ensp": "\u{2002}", "emsp": "\u{2003}", "thinsp": "\u{2009}", "zwnj": "\u{200C}", "zwj": "\u{200D}",
            "ndash": "–", "mdash": "—", "lsquo": "‘", "rsquo": "’", "sbquo": "‚", "ldquo": "“", "rdquo": "”", "bdquo": "„",
            "lsaquo": "‹", "rsaquo": "›", "hellip": "…", "bull": "•", "dagger": "†", "Dagger": "‡", "permil": "‰",
            "prime": "′", "Prime": "″", "euro": "€", "trade": "™", "larr": "←", "rarr": "→", "uarr": "↑", "darr": "↓",
            "harr": "↔", "le": "≤", "ge": "≥", "ne": "≠", "asymp": "≈", "infin": "∞", "minus": "−", "sum": "∑",
            "radic": "√", "equiv": "≡", "check": "✓", "OElig": "Œ", "oelig": "œ", "Scaron": "Š", "scaron": "š",
            "Yuml": "Ÿ", "fnof": "ƒ", "circ": "ˆ", "tilde": "˜",
            "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "theta": "θ", "lambda": "λ",
            "mu": "μ", "pi": "π", "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω", "Delta": "Δ", "Sigma": "Σ", "Omega": "Ω",
        ]
        for (offset, name) in latin1Names.enumerated() {
            table[name] = String(Unicode.Scalar(UInt8(0xA0 + offset)))
        }
        return table
    }()
}
