#!/usr/bin/env python3
"""Builds a BEIR-format retrieval set from Debian python3.11-doc's FAQ pages.

Every FAQ section whose heading ends in "?" becomes a query, and the body of that section (its
text without the heading) is the query's one relevant passage. Two kinds of section are left out,
because their judgement would be wrong: a body too short to answer anything (it only points
elsewhere, like "See the next question.", under 40 characters), and a question asked on two pages
("What is Python?"), where each answer is relevant but only one would be judged so. That leaves the
169 pairs LOCAL-MODELS.md's reference figures were measured on. Usage:

    make-python-faq-set.py OUTPUT_DIR [FAQ_DIR]

FAQ_DIR defaults to /usr/share/doc/python3.11/html/faq (apt-get install python3.11-doc).
Writes corpus.jsonl, queries.jsonl and qrels/test.tsv, and prints how many pairs it made.
"""
import html.parser
import json
import os
import sys

SKIPPED = {"script", "style", "nav", "header", "footer"}
HEADINGS = {"h1", "h2", "h3", "h4", "h5", "h6"}
MIN_ANSWER = 40  # characters: shorter bodies only point elsewhere


class Sections(html.parser.HTMLParser):
    """Collects (heading, body text) for each section of the page's main document body."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.sections = []
        self.heading = None
        self.in_heading = False
        self.heading_text = []
        self.body = []
        self.skip = 0
        self.in_body = False
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "div" and "body" in (attrs.get("class") or "").split() and attrs.get("role") == "main":
            self.in_body = True
            self.depth = 0
        if self.in_body and tag == "div":
            self.depth += 1
        if tag in SKIPPED or (tag == "a" and "headerlink" in (attrs.get("class") or "")):
            self.skip += 1
        if tag in HEADINGS and self.in_body:
            self.flush()
            self.in_heading = True
            self.heading_text = []
        if tag in ("p", "li", "pre", "dd", "dt", "tr", "br") and self.in_body:
            self.body.append(" ")

    def handle_endtag(self, tag):
        if tag in SKIPPED or tag == "a" and self.skip:
            if self.skip:
                self.skip -= 1
        if tag in HEADINGS and self.in_heading:
            self.in_heading = False
            self.heading = " ".join("".join(self.heading_text).split())
        if self.in_body and tag == "div":
            self.depth -= 1
            if self.depth == 0:
                self.flush()
                self.in_body = False

    def handle_data(self, data):
        if self.skip or not self.in_body:
            return
        (self.heading_text if self.in_heading else self.body).append(data)

    def flush(self):
        if self.heading is not None:
            text = " ".join("".join(self.body).split())
            self.sections.append((self.heading, text))
        self.heading = None
        self.body = []


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    output = sys.argv[1]
    faq = sys.argv[2] if len(sys.argv) > 2 else "/usr/share/doc/python3.11/html/faq"
    if not os.path.isdir(faq):
        sys.exit(f"{faq} not found: install Debian's python3.11-doc")
    os.makedirs(os.path.join(output, "qrels"), exist_ok=True)
    pairs = []
    for name in sorted(os.listdir(faq)):
        if not name.endswith(".html") or name == "index.html":
            continue
        parser = Sections()
        with open(os.path.join(faq, name), encoding="utf-8") as page:
            parser.feed(page.read())
        parser.flush()
        for heading, body in parser.sections:
            if heading.endswith("?") and len(body) >= MIN_ANSWER:
                pairs.append((heading, body, name))
    asked = {}
    for heading, _, _ in pairs:
        asked[heading] = asked.get(heading, 0) + 1
    pairs = [pair for pair in pairs if asked[pair[0]] == 1]
    with open(os.path.join(output, "corpus.jsonl"), "w", encoding="utf-8") as corpus, \
            open(os.path.join(output, "queries.jsonl"), "w", encoding="utf-8") as queries, \
            open(os.path.join(output, "qrels", "test.tsv"), "w", encoding="utf-8") as qrels:
        qrels.write("query-id\tcorpus-id\tscore\n")
        for index, (heading, body, page) in enumerate(pairs):
            corpus.write(json.dumps({"_id": f"d{index}", "title": "", "text": body, "metadata": {"page": page}}, ensure_ascii=False) + "\n")
            queries.write(json.dumps({"_id": f"q{index}", "text": heading}, ensure_ascii=False) + "\n")
            qrels.write(f"q{index}\td{index}\t1\n")
    print(f"{len(pairs)} query/passage pairs written to {output}")


if __name__ == "__main__":
    main()
