import Testing
import Tokenizers

/// Which encoding a model name uses, as tiktoken's model table says.
@Suite(.timeLimit(.minutes(10)))
struct ModelEncodingTests {
    @Test(arguments: [
        "gpt-4o", "gpt-4o-mini", "gpt-4o-2024-08-06", "chatgpt-4o-latest", "gpt-4.1", "gpt-4.1-mini", "gpt-4.1-nano",
        "gpt-5", "gpt-5-mini", "gpt-5.1", "o1", "o1-mini", "o1-preview", "o3", "o3-mini", "o4-mini", "o4-mini-2025-04-16",
        "gpt-4.5-preview", "openai/gpt-4o", "GPT-4o", "ft:gpt-4o-mini:org::abc", "gpt-oss-20b",
    ])
    func o200kModels(_ model: String) {
        #expect(BPETokenizer.encoding(forModel: model) == .o200kBase)
    }

    @Test(arguments: [
        "gpt-4", "gpt-4-0613", "gpt-4-turbo", "gpt-4-32k", "gpt-3.5-turbo", "gpt-3.5-turbo-0125", "gpt-35-turbo",
        "text-embedding-3-small", "text-embedding-3-large", "text-embedding-ada-002", "ft:gpt-3.5-turbo:org::x",
    ])
    func cl100kModels(_ model: String) {
        #expect(BPETokenizer.encoding(forModel: model) == .cl100kBase)
    }

    @Test(arguments: ["llama-3.1-8b", "qwen2.5-coder-0.5b-instruct", "claude-3-opus", "", "text-davinci-003"])
    func unknownModels(_ model: String) {
        #expect(BPETokenizer.encoding(forModel: model) == nil)
    }

    @Test func encodingNamesAndFiles() {
        #expect(BPETokenizer.Encoding.cl100kBase.name == "cl100k_base")
        #expect(BPETokenizer.Encoding.o200kBase.fileName == "o200k_base.tiktoken")
        #expect(BPETokenizer.Encoding(rawValue: "o200k_base") == .o200kBase)
    }
}
