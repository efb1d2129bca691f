import CDBus
public import Foundation

/// A D-Bus value, as read from or written to a message.
public indirect enum DBusValue: Sendable, Hashable {
    case byte(UInt8)
    case bool(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    /// `ay`
    case bytes(Data)
    /// An array of anything but bytes and dictionary entries; `element` is the element signature.
    case array([DBusValue], element: String)
    /// `a{..}`: a dictionary (key and value signatures given).
    case dictionary([DBusValue: DBusValue], key: String, value: String)
    case variant(DBusValue)
    case structure([DBusValue])

    /// The value's D-Bus type signature.
    public var signature: String {
        switch self {
        case .byte: "y"
        case .bool: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .bytes: "ay"
        case .array(_, let element): "a" + element
        case .dictionary(_, let key, let value): "a{" + key + value + "}"
        case .variant: "v"
        case .structure(let members): "(" + members.map(\.signature).joined() + ")"
        }
    }

    /// A string-keyed dictionary of variants (`a{sv}`), the usual shape of options and properties.
    public static func options(_ entries: [String: DBusValue]) -> DBusValue {
        .dictionary(Dictionary(uniqueKeysWithValues: entries.map { (.string($0.key), .variant($0.value)) }), key: "s", value: "v")
    }

    // MARK: Reading

    /// The value inside a variant (itself otherwise).
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var string: String? {
        switch unwrapped {
        case .string(let text), .objectPath(let text), .signature(let text): text
        default: nil
        }
    }

    public var bool: Bool? {
        if case .bool(let value) = unwrapped { return value }
        return nil
    }

    public var integer: Int? {
        switch unwrapped {
        case .byte(let v): Int(v)
        case .int16(let v): Int(v)
        case .uint16(let v): Int(v)
        case .int32(let v): Int(v)
        case .uint32(let v): Int(v)
        case .int64(let v): Int(v)
        case .uint64(let v): Int(v)
        default: nil
        }
    }

    public var data: Data? {
        if case .bytes(let data) = unwrapped { return data }
        return nil
    }

    public var strings: [String]? {
        if case .array(let items, _) = unwrapped { return items.compactMap(\.string) }
        return nil
    }

    /// A dictionary with string (or object-path) keys.
    public var entries: [String: DBusValue]? {
        guard case .dictionary(let items, _, _) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for (key, value) in items {
            if let name = key.string { out[name] = value }
        }
        return out
    }
}

extension DBusValue {
    /// Reads the value at the iterator's position.
    static func read(_ iterator: inout DBusMessageIter) -> DBusValue? {
        let type = dbus_message_iter_get_arg_type(&iterator)
        func basic<T>(_ initial: T) -> T {
            var value = initial
            withUnsafeMutablePointer(to: &value) { dbus_message_iter_get_basic(&iterator, UnsafeMutableRawPointer($0)) }
            return value
        }
        switch UInt8(truncatingIfNeeded: type) {
        case UInt8(ascii: "y"): return .byte(basic(UInt8(0)))
        case UInt8(ascii: "b"): return .bool(basic(dbus_bool_t(0)) != 0)
        case UInt8(ascii: "n"): return .int16(basic(Int16(0)))
        case UInt8(ascii: "q"): return .uint16(basic(UInt16(0)))
        case UInt8(ascii: "i"): return .int32(basic(Int32(0)))
        case UInt8(ascii: "u"): return .uint32(basic(UInt32(0)))
        case UInt8(ascii: "x"): return .int64(basic(Int64(0)))
        case UInt8(ascii: "t"): return .uint64(basic(UInt64(0)))
        case UInt8(ascii: "d"): return .double(basic(Double(0)))
        case UInt8(ascii: "s"), UInt8(ascii: "o"), UInt8(ascii: "g"):
            let pointer: UnsafePointer<CChar>? = basic(nil)
            let text = pointer.map { String(cString: $0) } ?? ""
            return type == Int32(UInt8(ascii: "s")) ? .string(text) : type == Int32(UInt8(ascii: "o")) ? .objectPath(text) : .signature(text)
        case UInt8(ascii: "v"):
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return read(&inner).map { .variant($0) }
        case UInt8(ascii: "r"), UInt8(ascii: "("):
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            return .structure(readAll(&inner))
        case UInt8(ascii: "a"):
            let elementType = dbus_message_iter_get_element_type(&iterator)
            var inner = DBusMessageIter()
            dbus_message_iter_recurse(&iterator, &inner)
            let signature = dbus_message_iter_get_signature(&inner).map { pointer -> String in
                defer { dbus_free(pointer) }
                return String(cString: pointer)
            } ?? ""
            if elementType == Int32(UInt8(ascii: "y")) {
                var bytes = Data()
                while dbus_message_iter_get_arg_type(&inner) != DBusType.invalid {
                    if case .byte(let b)? = read(&inner) { bytes.append(b) }
                    dbus_message_iter_next(&inner)
                }
                return .bytes(bytes)
            }
            if elementType == Int32(UInt8(ascii: "e")) {
                var items: [DBusValue: DBusValue] = [:]
                let inside = signature.hasPrefix("{") ? String(signature.dropFirst().dropLast()) : ""
                let key = String(inside.prefix(1))
                while dbus_message_iter_get_arg_type(&inner) != DBusType.invalid {
                    var entry = DBusMessageIter()
                    dbus_message_iter_recurse(&inner, &entry)
                    if let k = read(&entry) {
                        dbus_message_iter_next(&entry)
                        if let v = read(&entry) { items[k] = v }
                    }
                    dbus_message_iter_next(&inner)
                }
                return .dictionary(items, key: key, value: String(inside.dropFirst()))
            }
            return .array(readAll(&inner), element: signature)
        default:
            return nil
        }
    }

    /// Reads every value from the iterator's position on.
    static func readAll(_ iterator: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iterator) != DBusType.invalid {
            if let value = read(&iterator) { values.append(value) }
            dbus_message_iter_next(&iterator)
        }
        return values
    }

    /// Appends the value at the iterator's position.
    func append(to iterator: inout DBusMessageIter) {
        func basic<T>(_ type: Character, _ value: T) {
            var copy = value
            withUnsafePointer(to: &copy) { _ = dbus_message_iter_append_basic(&iterator, Int32(type.asciiValue!), UnsafeRawPointer($0)) }
        }
        switch self {
        case .byte(let v): basic("y", v)
        case .bool(let v): basic("b", dbus_bool_t(v ? 1 : 0))
        case .int16(let v): basic("n", v)
        case .uint16(let v): basic("q", v)
        case .int32(let v): basic("i", v)
        case .uint32(let v): basic("u", v)
        case .int64(let v): basic("x", v)
        case .uint64(let v): basic("t", v)
        case .double(let v): basic("d", v)
        case .string(let text), .objectPath(let text), .signature(let text):
            let type: Character = if case .string = self { "s" } else if case .objectPath = self { "o" } else { "g" }
            text.withCString { pointer in
                var p: UnsafePointer<CChar>? = pointer
                withUnsafePointer(to: &p) { _ = dbus_message_iter_append_basic(&iterator, Int32(type.asciiValue!), UnsafeRawPointer($0)) }
            }
        case .bytes(let data):
            container(DBusType.array, "y", &iterator) { inner in
                for byte in data { DBusValue.byte(byte).append(to: &inner) }
            }
        case .array(let items, let element):
            container(DBusType.array, element, &iterator) { inner in
                for item in items { item.append(to: &inner) }
            }
        case .dictionary(let items, let key, let value):
            container(DBusType.array, "{" + key + value + "}", &iterator) { inner in
                for (k, v) in items {
                    container(DBusType.dictEntry, nil, &inner) { entry in
                        k.append(to: &entry)
                        v.append(to: &entry)
                    }
                }
            }
        case .variant(let inner):
            container(DBusType.variant, inner.signature, &iterator) { contained in inner.append(to: &contained) }
        case .structure(let members):
            container(DBusType.structure, nil, &iterator) { inner in
                for member in members { member.append(to: &inner) }
            }
        }
    }

    private func container(_ type: Int32, _ signature: String?, _ iterator: inout DBusMessageIter, _ body: (inout DBusMessageIter) -> Void) {
        var inner = DBusMessageIter()
        if let signature {
            signature.withCString { _ = dbus_message_iter_open_container(&iterator, type, $0, &inner) }
        } else {
            _ = dbus_message_iter_open_container(&iterator, type, nil, &inner)
        }
        body(&inner)
        _ = dbus_message_iter_close_container(&iterator, &inner)
    }
}

/// libdbus's type codes (C macros of the form `((int) 'a')`, which Swift does not import).
enum DBusType {
    static let invalid: Int32 = 0
    static let array = Int32(UInt8(ascii: "a"))
    static let dictEntry = Int32(UInt8(ascii: "e"))
    static let variant = Int32(UInt8(ascii: "v"))
    static let structure = Int32(UInt8(ascii: "r"))
}
