/// The cosine of the angle between two vectors of the same length: how far two embeddings of one
/// text (from two engines, or two runs) agree.
public func cosine(_ a: [Float], _ b: [Float]) -> Float {
    var dot: Float = 0, aa: Float = 0, bb: Float = 0
    for index in a.indices {
        dot += a[index] * b[index]
        aa += a[index] * a[index]
        bb += b[index] * b[index]
    }
    return dot / (aa.squareRoot() * bb.squareRoot())
}
