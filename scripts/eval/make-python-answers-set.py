#!/usr/bin/env python3
"""Builds an answer set for `sibyl eval --answers` from Debian python3.11-doc's library pages.

The documents are a few library reference pages, copied as they are (HTML, which Sibyl reads).
Each function, class or attribute on them whose description says "New in version X.Y" gives an
answerable question, "In which version of Python was NAME added?", whose expected fact is X.Y and
whose source is that page. The same question about objects documented on other pages, which are
not among the documents, gives the unanswerable questions: a small model often "knows" those
answers, so a right reply says that the documents do not answer rather than recalling one.

Usage:

    make-python-answers-set.py OUTPUT_DIR [--answerable N] [--unanswerable M] [--library DIR]

DIR defaults to /usr/share/doc/python3.11/html/library (apt-get install python3.11-doc).
Writes OUTPUT_DIR/documents/*.html and OUTPUT_DIR/questions.jsonl; the choice is deterministic.
"""
import argparse
import html.parser
import json
import os
import re
import shutil
import sys

DOCUMENTS = ["math.html", "statistics.html", "functools.html", "itertools.html"]
OTHER_PAGES = ["os.html", "sys.html", "typing.html", "subprocess.html", "time.html", "inspect.html", "shutil.html", "socket.html"]
VERSION = re.compile(r"New in version (\d+\.\d+)")


class AddedIn(html.parser.HTMLParser):
    """Collects (object name, version) from Sphinx's `<dl class="py …">` blocks: the first
    "New in version" note directly in an object's own description."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack = []  # one entry per open <dl>: the object it documents, or None
        self.found = {}
        self.in_note = False
        self.note = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        classes = (attrs.get("class") or "").split()
        if tag == "dl":
            self.stack.append(None if "py" not in classes else "")
        elif tag == "dt" and self.stack and self.stack[-1] == "" and attrs.get("id"):
            self.stack[-1] = attrs["id"]
        elif tag == "span" and "versionmodified" in classes and "added" in classes:
            self.in_note = True
            self.note = []

    def handle_endtag(self, tag):
        if tag == "dl" and self.stack:
            self.stack.pop()
        elif tag == "span" and self.in_note:
            self.in_note = False
            match = VERSION.search("".join(self.note))
            owner = self.stack[-1] if self.stack else None
            if match and owner and owner not in self.found:
                self.found[owner] = match.group(1)

    def handle_data(self, data):
        if self.in_note:
            self.note.append(data)


def added_in(path):
    parser = AddedIn()
    with open(path, encoding="utf-8") as page:
        parser.feed(page.read())
    return sorted(parser.found.items())


def spread(items, count):
    """`count` items spread evenly over the list, in order (all of them when there are fewer)."""
    if len(items) <= count:
        return items
    step = len(items) / count
    return [items[int(i * step)] for i in range(count)]


def question(name):
    return f"In which version of Python was {name} added?"


def main():
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("output")
    arguments.add_argument("--answerable", type=int, default=30)
    arguments.add_argument("--unanswerable", type=int, default=10)
    arguments.add_argument("--library", default="/usr/share/doc/python3.11/html/library")
    options = arguments.parse_args()
    if not os.path.isdir(options.library):
        sys.exit(f"{options.library} not found: install Debian's python3.11-doc")

    documents = os.path.join(options.output, "documents")
    os.makedirs(documents, exist_ok=True)
    answerable = []
    for page in DOCUMENTS:
        shutil.copyfile(os.path.join(options.library, page), os.path.join(documents, page))
        answerable += [(name, version, page) for name, version in added_in(os.path.join(options.library, page))]
    # Names documented on the chosen pages are never asked as unanswerable, even when another page mentions them.
    known = {name for name, _, _ in answerable}
    others = []
    for page in OTHER_PAGES:
        others += [(name, version) for name, version in added_in(os.path.join(options.library, page)) if name not in known]

    chosen = spread(answerable, options.answerable)
    unanswerable = spread(others, options.unanswerable)
    with open(os.path.join(options.output, "questions.jsonl"), "w", encoding="utf-8") as out:
        for index, (name, version, page) in enumerate(chosen, 1):
            out.write(json.dumps({"id": f"a{index}", "question": question(name), "answer": version, "source": page}) + "\n")
        for index, (name, _) in enumerate(unanswerable, 1):
            out.write(json.dumps({"id": f"u{index}", "question": question(name), "answer": None}) + "\n")
    print(f"{len(chosen)} answerable and {len(unanswerable)} unanswerable questions over {len(DOCUMENTS)} pages written to {options.output}")


if __name__ == "__main__":
    main()
