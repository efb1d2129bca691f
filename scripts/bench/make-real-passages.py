#!/usr/bin/env python3
"""Writes real English passages, one per line, for `SibylBenchmarks stores --passages FILE`.

The text comes from what Debian installs: the Python 3.11 documentation (python3.11-doc, HTML)
first, then the English manual pages (sections 1, 3, 5, 7 and 8), each file in sorted order, so the
same machine always gives the same passages. Each block of text (paragraph, list item, definition,
manual-page paragraph) is cut into pieces of at most 60 words; pieces under 8 words and repeats are
left out. Usage:

    make-real-passages.py OUTPUT [COUNT]

COUNT (default 100,300: a collection of 100,000 and 300 queries) is how many lines to write.
"""
import gzip
import html.parser
import os
import re
import sys

PYTHON_DOCS = "/usr/share/doc/python3.11/html"
MANUAL = "/usr/share/man"
SECTIONS = ("1", "3", "5", "7", "8")
MOST_WORDS = 60
FEWEST_WORDS = 8


class Blocks(html.parser.HTMLParser):
    """The text of each block element of a Sphinx page, navigation and code excluded."""

    BLOCK = {"p", "li", "dd", "dt", "td", "h1", "h2", "h3", "h4"}
    SKIPPED = {"script", "style", "nav", "pre"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.current, self.skip = [], [], 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIPPED:
            self.skip += 1
        if tag in self.BLOCK:
            self.flush()

    def handle_endtag(self, tag):
        if tag in self.SKIPPED and self.skip:
            self.skip -= 1
        if tag in self.BLOCK:
            self.flush()

    def handle_data(self, data):
        if not self.skip:
            self.current.append(data)

    def flush(self):
        self.blocks.append("".join(self.current))
        self.current = []


ESCAPES = re.compile(r"\\f(\(..|\[[^\]]*\]|.)|\\\(..|\\\[[^\]]*\]|\\\*(\(..|.)|\\s[-+]?\d+|\\.")
BREAKS = re.compile(r"^[.'](PP|P|LP|SH|SS|TP|IP|HP|sp|br|Sh|Ss|Pp|It)\b")
FONT_LINE = re.compile(r"^[.'](B|I|BR|IR|RB|RI|BI|IB|Nm|Fl|Ar)\s+(.*)")


def manual_blocks(text):
    """Paragraphs of a roff manual page, with the formatting requests and escapes taken out."""
    blocks, paragraph = [], []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            font = FONT_LINE.match(line)
            if font:
                paragraph.append(font.group(2).replace('"', ""))
            elif BREAKS.match(line):
                blocks.append(" ".join(paragraph))
                paragraph = []
            continue
        if not line.strip():
            blocks.append(" ".join(paragraph))
            paragraph = []
        else:
            paragraph.append(line)
    blocks.append(" ".join(paragraph))
    return [ESCAPES.sub("", block) for block in blocks]


def documents():
    """Every source's blocks of text, Python's documentation first."""
    for root, directories, files in sorted(os.walk(PYTHON_DOCS)):
        directories.sort()
        for name in sorted(files):
            if name.endswith(".html"):
                parser = Blocks()
                with open(os.path.join(root, name), encoding="utf-8", errors="replace") as page:
                    parser.feed(page.read())
                parser.flush()
                yield parser.blocks
    for section in SECTIONS:
        folder = os.path.join(MANUAL, "man" + section)
        if not os.path.isdir(folder):
            continue
        for name in sorted(os.listdir(folder)):
            try:
                with gzip.open(os.path.join(folder, name), "rt", encoding="utf-8", errors="replace") as page:
                    yield manual_blocks(page.read())
            except (OSError, EOFError):
                continue  # a link or a file that is not gzip


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    output, wanted = sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 100_300
    if not os.path.isdir(PYTHON_DOCS):
        sys.exit(f"{PYTHON_DOCS} is missing: apt-get install python3.11-doc")
    seen, written = set(), 0
    with open(output + ".partial", "w", encoding="utf-8") as out:
        for blocks in documents():
            for block in blocks:
                words = block.split()
                for start in range(0, len(words), MOST_WORDS):
                    piece = words[start:start + MOST_WORDS]
                    if len(piece) < FEWEST_WORDS:
                        continue
                    line = " ".join(piece)
                    if line in seen:
                        continue
                    seen.add(line)
                    out.write(line + "\n")
                    written += 1
                    if written == wanted:
                        break
                if written == wanted:
                    break
            if written == wanted:
                break
    if written < wanted:
        os.remove(output + ".partial")
        sys.exit(f"only {written} passages found; install more documentation or ask for fewer")
    os.replace(output + ".partial", output)
    print(f"wrote {written} passages to {output}")


if __name__ == "__main__":
    main()
