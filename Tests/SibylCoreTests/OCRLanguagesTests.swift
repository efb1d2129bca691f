import SibylCore
import Testing

struct OCRLanguagesTests {
    @Test func peopleWriteLanguagesAsCodesOrNamesAndTesseractGetsItsOwn() throws {
        #expect(try #require(OCRLanguages("ko")).tesseractArgument == "kor")
        #expect(try #require(OCRLanguages("en, id")).tesseractArgument == "eng+ind")
        // Korean first: tesseract spaces words as its first language does.
        #expect(try #require(OCRLanguages("en,ko")).tesseractArgument == "kor+eng")
        #expect(try #require(OCRLanguages("en,ko")).description == "eng,kor")
        #expect(try #require(OCRLanguages("Korean English korean")).codes == ["kor", "eng"])
        #expect(try #require(OCRLanguages("eng+chi_sim")).codes == ["eng", "chi_sim"])
        #expect(try #require(OCRLanguages("한국어")).description == "kor")
    }

    @Test func textThatNamesNoLanguageIsRefused() {
        for text in ["", " , ", "english; rm -rf", "en,x", "-l", "kor/../../etc", "abcd"] {
            #expect(OCRLanguages(text) == nil, "\(text)")
        }
    }
}
