import Foundation

/// Where the time of one spoken question went.
public struct GlassesTimings: Sendable, Hashable {
    /// From the first audio (or photo) byte to the end of the recording's transfer.
    public var audioTransfer: Duration = .zero
    /// Converting the audio for speech-to-text.
    public var audioConversion: Duration = .zero
    /// Speech-to-text.
    public var speechToText: Duration = .zero
    /// The chat model, from the request to the last token.
    public var languageModel: Duration = .zero
    /// Sending the answer to the glasses.
    public var display: Duration = .zero
    /// From the end of the recording to the last answer byte sent; when the question was heard as
    /// it was spoken (`streamed`), from the end of speech.
    public var total: Duration = .zero
    /// From the end of the recording (or of speech, when `streamed`) to the answer's first words sent to the glasses.
    public var firstWords: Duration = .zero
    /// The question was heard as it was spoken: `speechToText` is then what was left of it after the
    /// end of speech (the hang-over and the last decoding), and the figures count from the end of speech.
    public var streamed = false

    public init() {}

    /// Everything but the models and the radio: conversion, bookkeeping, storage, sending.
    public var overhead: Duration { total - speechToText - languageModel }
}
