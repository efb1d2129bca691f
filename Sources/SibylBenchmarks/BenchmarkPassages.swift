import TextEmbedding

/// Deterministic benchmark inputs: passages cut from a fixed English text.
enum BenchmarkPassages {
    /// A short query, typical of a question typed into the assistant.
    static let query = "How do I reset the router to factory settings?"

    /// Original prose for the benchmark (written for it; not quoted from anywhere).
    static let text = """
        The lighthouse on the northern cape was built in 1871, after a winter in which three cargo \
        ships ran aground on the shoals within a single week. Its first keeper, a retired ferry \
        captain named Elias Mortensen, kept a logbook that survives to this day: every entry lists \
        the wind, the state of the sea, the ships that passed, and the amount of oil burned during \
        the night. Reading it, one notices how much of the work was maintenance rather than \
        watching. The lens had to be polished each morning, the brass fittings protected from salt, \
        and the clockwork that turned the light wound every four hours, even in storms. \
        In 1923 the station received electricity, and the clockwork was replaced by a small motor. \
        The keepers stayed, because the fog signal still needed a human hand, and because the \
        harbour authority trusted a person more than a relay. Automation finally arrived in 1987; \
        the last keeper, Ingrid Halvorsen, wrote in the final entry that the light would now shine \
        for no one in particular, which she found both sad and oddly comforting. \
        Today the building is a small museum. Visitors climb the spiral staircase of one hundred and \
        twelve steps, look at the original Fresnel lens, and read copies of the logbooks displayed \
        in glass cases. Children are usually most interested in the storm of 1902, when waves broke \
        over the gallery and the keeper's family sheltered in the oil store for two days. Engineers \
        prefer the drawings of the foundation, which was cut directly into the granite and has not \
        moved a millimetre in a century and a half. \
        The museum's volunteers answer the same questions every summer: how far the light could be \
        seen (twenty nautical miles on a clear night), why the tower is painted in red and white \
        bands (so that sailors can tell it apart from the tower on the southern island by day), and \
        whether anyone still lives there (no, although a pair of ravens has nested under the roof \
        for as long as anyone can remember). A local school maintains a weather station on the \
        grounds, and its measurements are published online, continuing a record that began with \
        Mortensen's first careful notes about the direction of the wind.
        """

    /// `count` passages of about `tokens` tokens each (`[CLS]` and `[SEP]` included), each
    /// starting at a different word of the text and wrapping around it.
    static func make(count: Int, tokens: Int, tokenizer: BertTokenizer) -> [String] {
        let words = text.split(separator: " ").map(String.init)
        // Whitespace separates pieces, so a passage's length is the sum of its words' lengths.
        let lengths = words.map { tokenizer.count($0) }
        return (0..<count).map { index in
            var chosen: [String] = []
            var length = 2
            var word = (index * 13) % words.count
            while length < tokens {
                chosen.append(words[word])
                length += lengths[word]
                word = (word + 1) % words.count
            }
            return chosen.joined(separator: " ")
        }
    }
}
