import Foundation

/// Converts a CTranslate2 Whisper model into the ggml file whisper.cpp loads.
///
/// The file holds: the magic `ggml`, eleven int32 hyper-parameters, the mel filter bank, the
/// tokenizer's byte strings, then each tensor (a header, then float16 or float32 data).
public enum WhisperModelConverter {
    /// whisper.cpp's file magic, `ggml` in ASCII read as a little-endian int32.
    public static let magic: Int32 = 0x6767_6D6C

    /// Problems converting a model.
    public enum ConversionError: Error, Equatable, LocalizedError {
        case notWhisper(String)
        case unexpectedShape(variable: String, shape: [Int])
        case melFilterShape(expectedBands: Int, shape: [Int])
        case invalidTokenizer(line: Int)
        case nonZeroKeyBias(variable: String)
        case sizeMismatch(expected: Int, written: Int)

        public var errorDescription: String? {
            switch self {
            case .notWhisper(let reason):
                "The CTranslate2 model is not a Whisper model (\(reason))."
            case .unexpectedShape(let name, let shape):
                "Variable \(name) has an unexpected shape \(shape)."
            case .melFilterShape(let bands, let shape):
                "The mel filter bank has shape \(shape), but the model expects \(bands) bands."
            case .invalidTokenizer(let line):
                line == 0 ? "The tokenizer file is empty." : "The tokenizer file is not a tiktoken rank file (line \(line))."
            case .nonZeroKeyBias(let name):
                "\(name) has a non-zero key bias, which whisper.cpp's format cannot hold."
            case .sizeMismatch(let expected, let written):
                "The converted model has \(written) bytes instead of \(expected)."
            }
        }
    }

    /// Converts `model.bin` (or a directory holding it) using OpenAI's `mel_filters.npz` and `multilingual.tiktoken`.
    ///
    /// The result is written to a temporary file beside `output` and renamed into place only when
    /// complete, so `output` never holds a partial model. Tensors are streamed one at a time, so
    /// memory use stays near the largest tensor (the token embedding, 53 MB for base). English-only
    /// (`.en`) models take `gpt2.tiktoken` as `tokenizer` instead of `multilingual.tiktoken`.
    public static func convert(
        ctranslate2Model: URL, melFilters: URL, tokenizer: URL, output: URL,
        progress: (Double) -> Void = { _ in }
    ) throws {
        progress(0)
        var isDirectory: ObjCBool = false
        let modelURL = FileManager.default.fileExists(atPath: ctranslate2Model.path, isDirectory: &isDirectory) && isDirectory.boolValue
            ? ctranslate2Model.appendingPathComponent("model.bin") : ctranslate2Model
        let model = try CTranslate2Model(contentsOf: modelURL)
        guard model.specName.isEmpty || model.specName == "WhisperSpec" else { throw ConversionError.notWhisper("spec \(model.specName)") }
        let hyperParameters = try WhisperHyperParameters(model: model)
        let filters = try NumPyArray(npz: melFilters, key: "mel_\(hyperParameters.melBands)")
        guard filters.shape.count == 2, filters.shape[0] == hyperParameters.melBands else {
            throw ConversionError.melFilterShape(expectedBands: hyperParameters.melBands, shape: filters.shape)
        }
        let tokens = try TiktokenRanks.tokens(in: tokenizer)
        let tensors = try WhisperTensorMapping.plan(for: model, hyperParameters: hyperParameters)
        try checkKeyBiasesAreZero(model, hyperParameters)

        let header = fileHeader(hyperParameters, filters: filters, tokens: tokens)
        let total = header.count + tensors.reduce(0) { $0 + $1.fileSize }

        let directory = output.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let partial = directory.appendingPathComponent(".\(output.lastPathComponent).\(UUID().uuidString).partial")
        guard FileManager.default.createFile(atPath: partial.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: partial.path])
        }
        var renamed = false
        defer { if !renamed { try? FileManager.default.removeItem(at: partial) } }

        let handle = try FileHandle(forWritingTo: partial)
        do {
            try handle.write(contentsOf: header)
            var written = header.count
            progress(Double(written) / Double(total))
            for tensor in tensors {
                let data = try tensorRecord(tensor, from: model)
                try handle.write(contentsOf: data)
                written += data.count
                progress(Double(written) / Double(total))
            }
            try handle.synchronize()
            try handle.close()
            guard written == total else { throw ConversionError.sizeMismatch(expected: total, written: written) }
        } catch {
            try? handle.close()
            throw error
        }
        try replace(output, with: partial)
        renamed = true
        progress(1)
    }

    /// Magic, hyper-parameters, mel filters and tokens: everything before the tensors.
    static func fileHeader(_ hyperParameters: WhisperHyperParameters, filters: NumPyArray, tokens: [Data]) -> Data {
        var data = Data()
        LittleEndianData.append(magic, to: &data)
        for value in hyperParameters.headerValues { LittleEndianData.append(value, to: &data) }
        LittleEndianData.append(Int32(filters.shape[0]), to: &data)
        LittleEndianData.append(Int32(filters.shape[1]), to: &data)
        data.append(LittleEndianData.bytes(of: filters.values))
        LittleEndianData.append(Int32(tokens.count), to: &data)
        for token in tokens {
            LittleEndianData.append(Int32(token.count), to: &data)
            data.append(token)
        }
        return data
    }

    /// One tensor: n_dims, name length, type (0 f32, 1 f16), dims innermost first, name, data.
    static func tensorRecord(_ tensor: WhisperTensorPlan, from model: CTranslate2Model) throws -> Data {
        var data = Data()
        let name = Data(tensor.name.utf8)
        LittleEndianData.append(Int32(tensor.shape.count), to: &data)
        LittleEndianData.append(Int32(name.count), to: &data)
        LittleEndianData.append(tensor.storesFloat32 ? 0 : 1, to: &data)
        for dimension in tensor.shape.reversed() { LittleEndianData.append(Int32(dimension), to: &data) }
        data.append(name)
        let source = tensor.source
        let elements = tensor.sourceElements
        if tensor.storesFloat32 {
            data.append(LittleEndianData.bytes(of: try model.floats(source, elements: elements)))
        } else if source.dataType == .float16 {
            data.append(try model.bytes(of: source, elements: elements))
        } else {
            data.append(LittleEndianData.bytes(of: try model.floats(source, elements: elements).map(HalfFloat.bits(from:))))
        }
        return data
    }

    /// Whisper's key projections have no bias; CTranslate2 stores zeros there, which are dropped.
    private static func checkKeyBiasesAreZero(_ model: CTranslate2Model, _ hyperParameters: WhisperHyperParameters) throws {
        for (variable, rows) in try WhisperTensorMapping.droppedKeyBiases(for: model, hyperParameters: hyperParameters) {
            guard try model.floats(variable, elements: rows).allSatisfy({ $0 == 0 }) else {
                throw ConversionError.nonZeroKeyBias(variable: variable.name)
            }
        }
    }

    /// Moves `partial` over `output` in one step: rename(2) replaces an existing file atomically.
    private static func replace(_ output: URL, with partial: URL) throws {
        guard rename(partial.path, output.path) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [
                NSFilePathErrorKey: output.path,
                NSUnderlyingErrorKey: POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO),
            ])
        }
    }
}
