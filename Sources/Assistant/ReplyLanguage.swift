import Foundation

/// The language a question is written in, for the sentences Sibyl says itself rather than the
/// model: that the documents do not answer it. English, Korean (the seed apps' users) and
/// Indonesian are told apart; anything else is answered in English.
///
/// Korean is recognised by its script (Hangul among the letters); Indonesian, written in Latin
/// letters like English, by its common function and question words.
public enum ReplyLanguage: String, Sendable, CaseIterable {
    case english = "en"
    case korean = "ko"
    case indonesian = "id"

    public static func of(_ text: String) -> ReplyLanguage {
        var letters = 0, hangul = 0
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            letters += 1
            if (0xAC00...0xD7A3).contains(scalar.value) || (0x1100...0x11FF).contains(scalar.value) || (0x3130...0x318F).contains(scalar.value) {
                hangul += 1
            }
        }
        if letters > 0, hangul * 10 >= letters * 3 { return .korean }
        let words = text.lowercased().split(whereSeparator: { !$0.isLetter })
        let hits = words.filter { indonesianWords.contains(String($0)) }.count
        // At least one word in five: English mentions of "Di Maria" or "itu" stay English.
        if (hits >= 2 && hits * 5 >= words.count) || (hits == 1 && words.count <= 4) { return .indonesian }
        return .english
    }

    /// Frequent Indonesian words that English text hardly has.
    static let indonesianWords: Set<String> = [
        "apa", "apakah", "yang", "di", "ke", "dari", "dan", "ini", "itu", "bagaimana", "berapa", "kapan", "siapa",
        "mengapa", "kenapa", "dengan", "untuk", "tidak", "ada", "adalah", "saya", "anda", "kami", "kita", "dalam",
        "pada", "versi", "ditambahkan", "bisa", "sudah", "akan", "atau", "juga", "karena", "jika", "mana", "dimana",
    ]

    /// What a grounded answer says when the passages do not answer the question; the grounding
    /// prompt asks the model for exactly this.
    public var notInDocuments: String {
        switch self {
        case .english: "I could not find this in your documents."
        case .korean: "문서에서 이 내용을 찾을 수 없습니다."
        case .indonesian: "Saya tidak menemukan ini di dokumen Anda."
        }
    }

    /// What is added to an answer that no passage supports.
    public var unsupportedNote: String {
        switch self {
        case .english: "I could not find this in your documents: none of the passages I was given says so."
        case .korean: "문서에서 이 내용을 찾을 수 없습니다. 제게 주어진 어느 구절에도 그런 내용이 없습니다."
        case .indonesian: "Saya tidak menemukan ini di dokumen Anda: tidak ada bagian yang diberikan kepada saya yang menyebutkannya."
        }
    }

    /// The reply when no passage is relevant enough for the model to be asked at all.
    func nothingRelevant(score: String?, threshold: String) -> String {
        switch (self, score) {
        case (.english, nil): "Your documents contain nothing about this, so I won't guess. (The knowledge base is empty or has no match.)"
        case (.english, let score?): "Nothing in your documents answers this well enough, so I won't guess: the closest passage scores \(score), below the threshold of \(threshold)."
        case (.korean, nil): "문서에 이에 관한 내용이 없어 추측하지 않겠습니다. (지식 베이스가 비어 있거나 일치하는 내용이 없습니다.)"
        case (.korean, let score?): "문서에서 이 질문에 충분히 답하는 내용을 찾지 못해 추측하지 않겠습니다. 가장 가까운 구절의 점수는 \(score)로, 기준값 \(threshold)보다 낮습니다."
        case (.indonesian, nil): "Dokumen Anda tidak memuat apa pun tentang ini, jadi saya tidak akan menebak. (Basis pengetahuan kosong atau tidak ada yang cocok.)"
        case (.indonesian, let score?): "Tidak ada isi dokumen Anda yang cukup menjawab ini, jadi saya tidak akan menebak: bagian terdekat bernilai \(score), di bawah ambang \(threshold)."
        }
    }
}
