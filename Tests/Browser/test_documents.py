"""Documents in a browser: a PDF dropped on the page shows its progress and then its statistics
chart; a question with the documents switch on is answered with a citation that opens the
passage on the right page; search ranks passages; a document can be removed."""

import base64
import re

from playwright.sync_api import expect

from conftest import every_theme, screenshot
from pdf import make_pdf

HANDBOOK = make_pdf([
    ["Staff handbook", "Welcome to the company. This handbook explains how we work together."],
    ["Offices", "The Kestrel Lane office is open from 8:00 to 18:00 on weekdays.", "The staff wifi password at Kestrel Lane is violet-harbor-42."],
    ["Holidays", "Every employee has 25 days of paid holiday each year."],
])


def drop(page, target: str, name: str, data: bytes, mime: str):
    """Drops a file on an element the way a browser does when a user drags one from the desktop."""
    page.evaluate(
        """([selector, name, data, mime]) => {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const transfer = new DataTransfer();
            transfer.items.add(new File([bytes], name, { type: mime }));
            const zone = document.querySelector(selector);
            for (const type of ['dragenter', 'dragover', 'drop']) {
                zone.dispatchEvent(new DragEvent(type, { dataTransfer: transfer, bubbles: true, cancelable: true }));
            }
        }""",
        [target, name, base64.b64encode(data).decode(), mime],
    )


def test_a_dropped_pdf_is_added_with_statistics_and_cited_by_page(stub_server, model_stub, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/documents")
    expect(page.get_by_role("heading", name="Documents", level=1)).to_be_visible()
    drop(page, "#drop-zone", "handbook.pdf", HANDBOOK, "application/pdf")
    row = page.locator(".uploads li[data-file='handbook.pdf']")
    expect(row).to_have_attribute("data-state", "done", timeout=120_000)
    expect(row.locator(".upload-status")).to_have_text("Added")
    expect(row.locator("progress")).to_have_attribute("value", "100")
    table_row = page.locator("table.documents tbody tr").filter(has_text="handbook")
    expect(table_row).to_have_count(1)
    expect(table_row.locator("td").nth(0)).to_have_text("PDF")
    expect(table_row.locator("td").nth(1)).to_have_text("3")
    # Counts are in their language's plural forms (one document, three pages).
    expect(page.locator(".hint").filter(has_text="3 pages")).to_have_text(re.compile(r"^1 document · 3 pages · [\d,]+ tokens · [\d,]+ passages?$"))
    table_row.get_by_role("button").first.click()
    details = page.locator(".document-details")
    expect(details.get_by_role("heading", name="Passage sizes")).to_be_visible()
    expect(details.locator("canvas[role=img]")).to_have_count(1)
    # The chart's text follows the theme: a canvas cannot read the palette's light-dark() pairs, so
    # the page resolves them, and again when the theme changes.
    seen = {}
    for theme in ("dark", "midnight", "light"):
        page.get_by_label("Theme").select_option(theme)
        seen[theme] = page.evaluate("""() => {
            const chart = Chart.getChart(document.querySelector('.document-details canvas'));
            return [chart.options.scales.x.ticks.color, chart.options.scales.y.ticks.color, getComputedStyle(document.body).color];
        }""")
        assert seen[theme][0] == seen[theme][1] == seen[theme][2], (theme, seen[theme])
    assert seen["dark"][0] != seen["light"][0], seen
    expect(details.locator("dl")).to_contain_text("Time per phase")
    every_theme(page, "documents")

    page.get_by_role("searchbox").fill("wifi password")
    page.get_by_role("button", name="Search", exact=True).click()
    first = page.locator(".passages li").first
    expect(first).to_contain_text("violet-harbor-42")
    expect(first).to_contain_text("page 2")

    # A grounded question: the answer cites the handbook, and [1] opens the passage on page 2.
    model_stub.answer, model_stub.delay = "The staff wifi password is violet-harbor-42 [1].", 0.0
    page.get_by_role("link", name="Chat").click()
    page.get_by_label("Answer from my documents").check()
    page.get_by_label("Your question").fill("What is the staff wifi password at the Kestrel Lane office?")
    page.get_by_label("Your question").press("Enter")
    answer = page.locator(".bubble.answer").last
    expect(answer).to_have_attribute("data-status", "complete", timeout=60_000)
    sent = [request for request in model_stub.requests if request.get("stream")][-1]
    assert "violet-harbor-42" in str(sent["messages"]), "the passage was given to the model"
    source = answer.locator(".citations details").first
    expect(source.locator("summary")).to_contain_text("[1] handbook")
    expect(source.locator("summary")).to_contain_text("page 2")
    answer.get_by_role("button", name="Open source 1").click()
    expect(source.locator("blockquote")).to_be_visible()
    expect(source.locator("blockquote")).to_contain_text("violet-harbor-42")
    # Each sentence names the source that supports it, and only the sources some sentence rests on are listed.
    claims = answer.locator("details.claims")
    claims.locator("summary").click()
    expect(claims.locator("li")).to_have_count(1)
    expect(claims.locator("li .claim-text").first).to_have_text("The staff wifi password is violet-harbor-42.")
    expect(claims.locator("li .claim-sources").first).to_have_text("[1]")
    expect(answer.locator(".citations li")).to_have_count(1)
    screenshot(page, "chat-citation")
    page.get_by_label("Answer from my documents").uncheck()

    page.get_by_role("link", name="Documents").click()
    # In Korean, a count has one form whatever the number.
    page.get_by_label("Language").select_option("ko")
    expect(page.locator("html")).to_have_attribute("lang", "ko")  # the choice is kept once the catalog is in
    page.reload()
    expect(page.locator(".hint").filter(has_text="3쪽")).to_have_text(re.compile(r"^문서 1개 · 3쪽 · 토큰 [\d,]+개 · 구절 [\d,]+개$"))
    page.get_by_label("언어", exact=True).select_option("en")
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.reload()
    page.get_by_role("button", name="Remove handbook").click()
    expect(page.locator("table.documents tbody tr")).to_have_count(0)
    expect(page.get_by_text("No documents in this collection yet.")).to_be_visible()


def test_a_file_that_cannot_be_read_says_why(stub_server, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/documents")
    expect(page.locator("#drop-zone")).to_be_visible()
    drop(page, "#drop-zone", "broken.pdf", b"%PDF-1.4 this is not really a PDF", "application/pdf")
    row = page.locator(".uploads li[data-file='broken.pdf']")
    expect(row).to_have_attribute("data-state", "failed", timeout=60_000)
    expect(row.locator(".upload-status")).to_contain_text("Failed")
    expect(page.locator(".failures")).to_contain_text("broken.pdf")


def korean_scan(text: str) -> bytes:
    """A PNG of one line of Korean, as a phone photographs a printed notice (Debian's NanumGothic)."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        with open(f"{folder}/text.txt", "w", encoding="utf-8") as file:
            file.write(text)
        subprocess.run([
            "ffmpeg", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "color=white:s=1100x170", "-frames:v", "1",
            "-vf", f"drawtext=fontfile=/usr/share/fonts/truetype/nanum/NanumGothic.ttf:textfile={folder}/text.txt:fontsize=56:fontcolor=black:x=40:y=40",
            f"{folder}/scan.png",
        ], check=True)
        with open(f"{folder}/scan.png", "rb") as file:
            return file.read()


def test_a_korean_scan_is_read_in_the_language_chosen_for_it(stub_server, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/documents")
    page.get_by_role("combobox", name="Collection").fill("scans")
    page.get_by_role("combobox", name="Collection").dispatch_event("change")
    page.get_by_label("Text in scans").select_option(label="Korean")
    drop(page, "#drop-zone", "notice.png", korean_scan("도서관은 오후 여섯 시에 문을 닫습니다."), "image/png")
    row = page.locator(".uploads li[data-file='notice.png']")
    expect(row).to_have_attribute("data-state", "done", timeout=120_000)
    page.get_by_role("searchbox").fill("도서관")
    page.get_by_role("button", name="Search", exact=True).click()
    expect(page.locator(".passages li").first).to_contain_text("도서관은 오후 여섯 시에 문을 닫습니다.")
    # The choice stays for the next upload; "As in the settings" sends none.
    page.reload()
    expect(page.get_by_label("Text in scans")).to_have_value("kor")
    page.get_by_label("Text in scans").select_option(label="As in the settings")
    page.get_by_role("button", name="Remove notice").click()
    expect(page.locator("table.documents tbody tr")).to_have_count(0)
