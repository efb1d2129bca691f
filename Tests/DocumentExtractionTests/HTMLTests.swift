import Foundation
import SibylCore
import Testing
@testable import DocumentExtraction

@Suite(.timeLimit(.minutes(10)))
struct HTMLTests {
    static let page = """
        <!DOCTYPE html>
        <html><head><title>Tea &amp; Coffee</title>
        <style>p { color: red; } </p></style>
        <script>var s = "<h1>not a heading</h1>";</script>
        </head>
        <body>
        <header><h1>Site banner</h1></header>
        <nav><ul><li>Home</li><li>About</li></ul></nav>
        <!-- a comment <p>hidden</p> -->
        <h1>Brewing   guide</h1>
        <p>Water at 95&nbsp;&deg;C &mdash; not&#160;boiling &#x2014; works <b>best</b>.
        <p>Second paragraph<br>with a break
        <h2 class="x">Tea</h2>
        <ul><li>Green<li>Black <i>tea</i></ul>
        <blockquote><p>Tea is liquid wisdom.</p></blockquote>
        <pre>
        steep(minutes: 3)
          stir()</pre>
        <table><tr><th>Kind</th><th>Minutes</th></tr>
        <tr><td>Green</td><td>2<br>or 3</td></tr></table>
        <h3>Notes</h3><div>Loose text in a div &lt;with&gt; entities &unknown; &amp</div>
        <footer><p>Copyright</p></footer>
        </body></html>
        """

    @Test func elementsWithAChromeRoleAreLeftOutWhateverTheirTag() throws {
        // The shape of a Sphinx page: menus are divs marked only by their ARIA role.
        let page = """
            <body><div class="related" role="navigation" aria-label="Related"><h3>Navigation</h3>
            <ul><li><a href="x">index</a></li><li><div>modules</div></li></ul></div>
            <div class="body" role="main"><h1>math</h1><p>math.isqrt(n) returns the integer square root.</p>
            <div ROLE = 'search'><p>Quick search</p></div>
            <div role="note"><p>New in version 3.8.</p></div></div>
            <div class=footer role=contentinfo>© Copyright</div><p data-role="navigation">Kept</p></body>
            """
        let (blocks, _) = try HTMLReader.read(page)
        #expect(blocks.map(\.text) == ["math", "math.isqrt(n) returns the integer square root.", "New in version 3.8.", "Kept"])
    }

    @Test func readsStructureAndSkipsChrome() throws {
        let (blocks, title) = try HTMLReader.read(Self.page)
        #expect(title == "Tea & Coffee")
        let summary = blocks.map { "\($0.kind)|\($0.headingPath.joined(separator: ">"))|\($0.text)" }
        #expect(summary == [
            "heading(level: 1)||Brewing guide",
            "paragraph|Brewing guide|Water at 95 °C — not boiling — works best.",
            "paragraph|Brewing guide|Second paragraph\nwith a break",
            "heading(level: 2)|Brewing guide|Tea",
            "listItem|Brewing guide>Tea|Green",
            "listItem|Brewing guide>Tea|Black tea",
            "quote|Brewing guide>Tea|Tea is liquid wisdom.",
            "code|Brewing guide>Tea|steep(minutes: 3)\n  stir()",
            "table|Brewing guide>Tea|Kind | Minutes",
            "table|Brewing guide>Tea|Green | 2 or 3",
            "heading(level: 3)|Brewing guide>Tea|Notes",
            "paragraph|Brewing guide>Tea>Notes|Loose text in a div <with> entities &unknown; &",
        ])
    }

    @Test func definitionTermsHeadTheirDescriptions() throws {
        let page = """
            <h2>Number-theoretic functions</h2><dl class="py function"><dt id="math.comb"><span>math.</span><span>comb</span>(<em>n</em>, <em>k</em>)<a class="headerlink" href="#math.comb">¶</a></dt>
            <dd><p>Return the number of ways to choose k items from n items.</p><p>New in version 3.8.</p></dd>
            <dt>math.perm(n)</dt><dt>math.perm(n, k)</dt><dd><p>Permutations.</p>
            <dl class="py method"><dt>inner()</dt><dd><p>Nested.</p></dd></dl><p>Back in perm.</p></dd></dl>
            <p>After the list.</p>
            """
        let (blocks, _) = try HTMLReader.read(page)
        #expect(blocks.map { "\($0.kind)|\($0.headingPath.joined(separator: ">"))|\($0.text)" } == [
            "heading(level: 2)||Number-theoretic functions",
            "term|Number-theoretic functions|math.comb(n, k)",
            "listItem|Number-theoretic functions>math.comb(n, k)|Return the number of ways to choose k items from n items.",
            "listItem|Number-theoretic functions>math.comb(n, k)|New in version 3.8.",
            "term|Number-theoretic functions|math.perm(n)\nmath.perm(n, k)",
            "listItem|Number-theoretic functions>math.perm(n) / math.perm(n, k)|Permutations.",
            "term|Number-theoretic functions>math.perm(n) / math.perm(n, k)|inner()",
            "listItem|Number-theoretic functions>math.perm(n) / math.perm(n, k)>inner()|Nested.",
            "listItem|Number-theoretic functions>math.perm(n) / math.perm(n, k)|Back in perm.",
            "paragraph|Number-theoretic functions|After the list.",
        ])
    }

    @Test func aTitleThatIsTheHeadingPlusTheSiteNameIsTheHeading() {
        #expect(HTMLReader.documentTitle(title: "math — Mathematical functions — Python 3.11.2 documentation", firstHeading: "math — Mathematical functions") == "math — Mathematical functions")
        #expect(HTMLReader.documentTitle(title: "Brewing | Tea Shop", firstHeading: "Brewing") == "Brewing")
        #expect(HTMLReader.documentTitle(title: "Tea & Coffee", firstHeading: "Tea") == "Tea & Coffee")
        #expect(HTMLReader.documentTitle(title: "Teapots", firstHeading: "Tea") == "Teapots")
        #expect(HTMLReader.documentTitle(title: "Other page", firstHeading: "Brewing") == "Other page")
        #expect(HTMLReader.documentTitle(title: nil, firstHeading: "Brewing") == "Brewing")
        #expect(HTMLReader.documentTitle(title: "", firstHeading: nil) == nil)
    }

    @Test func decodesEntities() {
        #expect(HTMLEntities.latin1Names.count == 96)
        #expect(HTMLEntities.decode("&lt;a&gt; &eacute;&Eacute; &#65;&#x42;&#X43; &hellip; &#0; &bogus; & x") == "<a> éÉ ABC … \u{FFFD} &bogus; & x")
    }

    @Test func toleratesBrokenMarkup() throws {
        let (blocks, title) = try HTMLReader.read("<p>one <b>bold<p>two</i></div> <h2>Head <p>after 1 < 2 </h2><li>loose item")
        #expect(title == "Head")
        #expect(blocks.map(\.text) == ["one bold", "two", "Head", "after 1 < 2", "loose item"])
    }

    @Test func tagNamesIgnoreCaseAndCDATAIsText() throws {
        let (blocks, title) = try HTMLReader.read("<TITLE>Upper</TITLE><SCRIPT>if (a </b) {}</SCRIPT ><P CLASS='a>b'>Visible<![CDATA[ & raw ]]></P><!-- unterminated")
        #expect(title == "Upper")
        #expect(blocks.map(\.text) == ["Visible & raw"])
    }

    @Test func extractsAnHTMLFile() async throws {
        try await Scratch.run { scratch in
            let document = try await DocumentExtractor().extract(try scratch.file("guide.html", text: Self.page))
            #expect(document.format == .html)
            #expect(document.title == "Tea & Coffee")
            #expect(document.blocks.count == 12)
        }
    }
}
