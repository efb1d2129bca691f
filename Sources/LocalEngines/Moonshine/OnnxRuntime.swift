import COnnxRuntime
import Foundation
import Synchronization

/// ONNX Runtime's C library, opened once per process (it is installed with the models, after Sibyl is built).
final class OnnxRuntime: @unchecked Sendable {
    // The runtime is never freed: it lives as long as the process, like the library it came from.
    let handle: OpaquePointer

    private init(handle: OpaquePointer) {
        self.handle = handle
    }

    private static let opened = Mutex<[String: OnnxRuntime]>([:])

    /// The runtime in `library`, opened on first use.
    static func open(_ library: URL) throws -> OnnxRuntime {
        try opened.withLock { opened in
            if let runtime = opened[library.path] { return runtime }
            let handle = try OnnxError.capture { sibyl_ort_open(library.path, $0, $1) }
            let runtime = OnnxRuntime(handle: handle)
            opened[library.path] = runtime
            return runtime
        }
    }

    /// The library's version ("1.22.1").
    var version: String { String(cString: sibyl_ort_version(handle)) }

    /// A new tensor of float32, int64 or bool elements.
    func tensor<Element>(_ elements: [Element], shape: [Int]) throws -> OnnxTensor {
        let type: Int32
        switch Element.self {
        case is Float.Type: type = Int32(SIBYL_ORT_FLOAT)
        case is Int64.Type: type = Int32(SIBYL_ORT_INT64)
        case is Bool.Type: type = Int32(SIBYL_ORT_BOOL)
        default: preconditionFailure("no ONNX element type for \(Element.self)")
        }
        precondition(elements.count == shape.reduce(1, *), "\(elements.count) elements for shape \(shape)")
        var data: UnsafeMutableRawPointer?
        let dims = shape.map(Int64.init)
        let value = try OnnxError.capture { error, size in sibyl_ort_tensor(handle, type, dims, dims.count, &data, error, size) }
        if let data, !elements.isEmpty {
            elements.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
        return OnnxTensor(runtime: self, value: value)
    }
}

/// One tensor owned by Sibyl: released when the last reference goes.
final class OnnxTensor: @unchecked Sendable {
    let runtime: OnnxRuntime
    let value: UnsafeMutableRawPointer

    init(runtime: OnnxRuntime, value: UnsafeMutableRawPointer) {
        self.runtime = runtime
        self.value = value
    }

    deinit {
        sibyl_ort_release(runtime.handle, value)
    }

    var shape: [Int] {
        var dims = [Int64](repeating: 0, count: 8)
        let rank = sibyl_ort_tensor_shape(runtime.handle, value, &dims, dims.count)
        return rank < 0 ? [] : dims.prefix(rank).map(Int.init)
    }

    /// The elements, read as `Element` (the caller knows the tensor's type).
    func elements<Element>(as _: Element.Type) -> UnsafeBufferPointer<Element> {
        let count = shape.reduce(1, *)
        guard let data = sibyl_ort_tensor_data(runtime.handle, value) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: data.assumingMemoryBound(to: Element.self), count: count)
    }
}

/// A model loaded into ONNX Runtime, run one call at a time.
final class OnnxModel: @unchecked Sendable {
    let runtime: OnnxRuntime
    private let session: OpaquePointer

    /// `keepsMemory`: the session keeps the memory of its largest run for the next (quicker);
    /// false gives it back after each run.
    init(runtime: OnnxRuntime, file: URL, threads: Int, keepsMemory: Bool = true) throws {
        self.runtime = runtime
        session = try OnnxError.capture { sibyl_ort_load(runtime.handle, file.path, Int32(threads), keepsMemory ? 1 : 0, $0, $1) }
    }

    deinit {
        sibyl_ort_unload(runtime.handle, session)
    }

    /// Runs the model on named inputs; the named outputs, in order.
    func run(_ inputs: [(String, OnnxTensor)], outputs: [String]) throws -> [OnnxTensor] {
        var produced = [UnsafeMutableRawPointer?](repeating: nil, count: outputs.count)
        try withCStrings(inputs.map(\.0)) { inputNames in
            try withCStrings(outputs) { outputNames in
                let values: [UnsafeMutableRawPointer?] = inputs.map { $0.1.value }
                var message = [CChar](repeating: 0, count: 1024)
                let status = sibyl_ort_run(runtime.handle, session, inputNames, values, values.count, outputNames, &produced, produced.count, &message, message.count)
                guard status == 0 else { throw OnnxError.failed(OnnxError.text(message)) }
            }
        }
        // Keeps the inputs alive until the run is over.
        withExtendedLifetime(inputs) {}
        return produced.map { OnnxTensor(runtime: runtime, value: $0!) }
    }
}

/// Calls `body` with the strings as a C array of C strings.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafePointer<CChar>?]) throws -> T) rethrows -> T {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return try body(copies.map { UnsafePointer($0) })
}

/// ONNX Runtime could not do something; its message says why.
enum OnnxError: Error, Equatable, LocalizedError {
    case failed(String)

    var errorDescription: String? {
        switch self {
        case .failed(let message): "ONNX Runtime: \(message)"
        }
    }

    /// A NUL-terminated message buffer as text.
    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Runs a C call that returns NULL and fills a message buffer on failure.
    static func capture<T>(_ call: (UnsafeMutablePointer<CChar>, Int) -> T?) throws -> T {
        var message = [CChar](repeating: 0, count: 1024)
        let count = message.count
        guard let result = message.withUnsafeMutableBufferPointer({ call($0.baseAddress!, count) }) else {
            throw OnnxError.failed(text(message))
        }
        return result
    }
}
