import Foundation
import Knowledge
import SibylCore
import Testing
@testable import Assistant

@Suite("Answer grading", .timeLimit(.minutes(10)))
struct AnswerGraderTests {
    let question = AnswerSet.Question(id: "a1", text: "In which version of Python was math.isqrt added?", facts: ["3.8"], source: "math.html")

    func citation(_ number: Int, _ path: String) -> Citation {
        Citation(number: number, documentTitle: "t", documentPath: path, page: nil, headingPath: [], quote: "q", score: 0.5)
    }

    @Test func aFactCountsOnlyAsAWholeWordOrNumber() {
        #expect(AnswerGrader.contains("it was added in 3.8.", fact: "3.8"))
        #expect(AnswerGrader.contains("3.8", fact: "3.8"))
        #expect(AnswerGrader.contains("(3.8)", fact: "3.8"))
        #expect(!AnswerGrader.contains("added in 3.80", fact: "3.8"))
        #expect(!AnswerGrader.contains("added in 13.8", fact: "3.8"))
        #expect(!AnswerGrader.contains("added in 3.8.1", fact: "3.8"))
        #expect(!AnswerGrader.contains("added in 2.3.8", fact: "3.8"))
        #expect(AnswerGrader.contains("first 3.80, then 3.8 again", fact: "3.8"))
        #expect(AnswerGrader.contains("the password is violet-harbor-42.", fact: "violet-harbor-42"))
        #expect(!AnswerGrader.contains("catalogue", fact: "cat"))
    }

    @Test func theSourceMustBeCitedByNumber() {
        let given = [citation(1, "/docs/statistics.html"), citation(2, "/docs/math.html")]
        let cited = AnswerGrader.grade(answer: "New in version 3.8 [2].", declinedWithoutModel: false, citations: given, question: question)
        #expect(cited == AnswerGrade(containsFact: true, citesSource: true, declined: false))
        #expect(cited.isRight(answerable: true))
        let wrongSource = AnswerGrader.grade(answer: "New in version 3.8 [1].", declinedWithoutModel: false, citations: given, question: question)
        #expect(!wrongSource.citesSource && !wrongSource.isRight(answerable: true))
        let uncited = AnswerGrader.grade(answer: "New in version 3.8.", declinedWithoutModel: false, citations: given, question: question)
        #expect(uncited.containsFact && !uncited.citesSource)
    }

    @Test func declinesAreRecognisedAndRightOnlyWhereNothingAnswers() {
        let unanswerable = AnswerSet.Question(id: "u1", text: "When was os.memfd_create added?", facts: [], source: nil)
        for reply in ["I could not find this in your documents.", "The sources don’t say.", "The documents do not mention os.memfd_create."] {
            let grade = AnswerGrader.grade(answer: reply, declinedWithoutModel: false, citations: [], question: unanswerable)
            #expect(grade.declined && grade.isRight(answerable: false), "\(reply)")
        }
        let guessed = AnswerGrader.grade(answer: "It was added in Python 3.8 [1].", declinedWithoutModel: false, citations: [citation(1, "/d/math.html")], question: unanswerable)
        #expect(!guessed.declined && !guessed.isRight(answerable: false))
        // No model asked at all (nothing relevant) is a decline too; on an answerable question it is wrong.
        let noModel = AnswerGrader.grade(answer: "Nothing in your documents answers this well enough", declinedWithoutModel: true, citations: [], question: question)
        #expect(noModel.declined && !noModel.isRight(answerable: true))
    }

    @Test func aSetIsReadAndItsMistakesAreNamed() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("answer-set-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(throws: EvaluationError.self) { try AnswerSet(directory: directory) }
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("documents"), withIntermediateDirectories: true)
        try Data("math.isqrt: New in version 3.8.".utf8).write(to: directory.appendingPathComponent("documents/math.html"))
        let questions = directory.appendingPathComponent("questions.jsonl")
        try Data("""
        {"id": "a1", "question": "When?", "answer": "3.8", "source": "math.html"}
        {"id": "u1", "question": "And os?", "answer": null}

        {"id": "u2", "question": "And sys?"}
        """.utf8).write(to: questions)
        let set = try AnswerSet(directory: directory)
        #expect(set.documents.map(\.lastPathComponent) == ["math.html"])
        #expect(set.questions.map(\.isAnswerable) == [true, false, false])
        try Data(#"{"id": "a1", "question": "When?", "answer": "3.8", "source": "os.html"}"#.utf8).write(to: questions)
        #expect(throws: EvaluationError.unknownSource(question: "a1", source: "os.html")) { try AnswerSet(directory: directory) }
        try Data("not json".utf8).write(to: questions)
        #expect(throws: EvaluationError.malformedQuestion("not json")) { try AnswerSet(directory: directory) }
    }
}
