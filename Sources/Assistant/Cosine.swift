/// The cosine of two embeddings (0 when either is empty, zero or of another length): how alike
/// two texts are, for the glasses' topic shifts and the memory's recall.
func cosine(_ a: [Float], _ b: [Float]) -> Double {
    guard a.count == b.count, !a.isEmpty else { return 0 }
    var dot: Float = 0, normA: Float = 0, normB: Float = 0
    for index in a.indices {
        dot += a[index] * b[index]
        normA += a[index] * a[index]
        normB += b[index] * b[index]
    }
    guard normA > 0, normB > 0 else { return 0 }
    return Double(dot / (normA.squareRoot() * normB.squareRoot()))
}
