"""The knowledge base managed from the browser: a missing embeddings model installs itself on the
first upload with a progress card; collections are renamed and removed from the Documents page;
the Settings page takes a Pinecone key, makes an index on the strict Pinecone mock (when the suite
runs with one) and moves the vectors there and back."""

import http.server
import json
import os
import tempfile
import threading
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import ROOT, every_theme, fresh_server, screenshot
from test_documents import drop

ENGINES = Path(os.environ.get("SIBYL_ENGINES") or Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sibyl/engines")
MANIFEST = json.loads((ROOT / "Sources/LocalEngines/Resources/engines.json").read_text())
NOTE = b"# Kestrels\n\nKestrels hover over fields, looking for voles.\n"


class CachedIndex:
    """A package index (PyPI's JSON simple API) serving one component's downloads from this
    machine's engines cache, slowly enough (about three seconds) for its progress to be seen."""

    def __init__(self, component: str):
        outputs = MANIFEST["components"][component]["outputs"]
        downloads = {d for o in outputs for d in MANIFEST["outputs"][o]["from"]}
        self.files = {MANIFEST["downloads"][d]["file"]: MANIFEST["downloads"][d] for d in downloads}
        missing = [f for f in self.files if not (ENGINES / "downloads" / f).exists()]
        if missing:
            pytest.skip(f"not cached on this machine: {missing}")
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                for name, download in index.files.items():
                    project = download["pypi"].lower().replace("_", "-").replace(".", "-")
                    if self.path.rstrip("/") == f"/simple/{project}":
                        body = json.dumps({"files": [{"filename": name, "url": f"{index.url}/files/{name}", "hashes": {"sha256": download["sha256"]}}]}).encode()
                        self.send_response(200)
                        self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
                        self.send_header("Content-Length", str(len(body)))
                        self.end_headers()
                        self.wfile.write(body)
                        return
                    if self.path == f"/files/{name}":
                        data = (ENGINES / "downloads" / name).read_bytes()
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        step = max(1, len(data) // 30)
                        for start in range(0, len(data), step):
                            self.wfile.write(data[start:start + step])
                            time.sleep(0.1)
                        return
                self.send_response(404)
                self.end_headers()

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def test_a_missing_embedder_installs_itself_with_a_progress_card(context):
    index = CachedIndex("embeddings")
    engines = Path(tempfile.mkdtemp(prefix="sibyl-engines-"))
    try:
        with fresh_server({"SIBYL_SERVE_AUTH": "none", "SIBYL_ENGINES": str(engines), "SIBYL_PYPI_INDEX": f"{index.url}/simple",
                           "SIBYL_EMBEDDINGS_PROVIDER": "local"}) as server:
            page = context.new_page()
            page.goto(server.url + "/#/documents")
            expect(page.get_by_role("heading", name="Documents", level=1)).to_be_visible()
            drop(page, "#drop-zone", "kestrels.md", NOTE, "text/markdown")
            card = page.locator(".install-card[data-component='embeddings']")
            expect(card).to_contain_text("Installing the local embeddings engine", timeout=60_000)
            # The bar moves while the model downloads.
            expect(card.locator("progress[value]")).to_be_visible(timeout=60_000)
            screenshot(page, "install-card")
            expect(card).to_contain_text("is installed", timeout=120_000)
            row = page.locator(".uploads li[data-file='kestrels.md']")
            expect(row).to_have_attribute("data-state", "done", timeout=120_000)
            expect(page.locator("table.documents tbody tr").filter(has_text="Kestrels")).to_have_count(1)
            # The models table follows: embeddings are installed now.
            page.goto(server.url + "/#/settings")
            expect(page.locator("tr[data-component='embeddings']")).to_contain_text("yes")
            assert "installed the local embeddings component" in server.output
    finally:
        index.stop()


def test_collections_are_renamed_and_removed_on_the_documents_page(stub_server, context):
    page = context.new_page()
    page.goto(stub_server.url + "/#/documents")
    expect(page.locator("#drop-zone")).to_be_visible()
    for collection, name in (("field-notes", "kestrels.md"), ("scratch", "draft.md")):
        page.get_by_label("Collection", exact=True).fill(collection)
        page.get_by_label("Collection", exact=True).dispatch_event("change")
        drop(page, "#drop-zone", name, NOTE, "text/markdown")
        expect(page.locator(f".uploads li[data-file='{name}']")).to_have_attribute("data-state", "done", timeout=120_000)
    rows = page.locator("table.collections tbody tr")
    notes = page.locator("table.collections tr[data-collection='field-notes']")
    expect(notes).to_contain_text("the knowledge base")
    every_theme(page, "documents-collections")

    # Renamed in place: Enter saves, and the page's collection follows.
    page.get_by_label("Collection", exact=True).fill("field-notes")
    page.get_by_label("Collection", exact=True).dispatch_event("change")
    expect(page.locator("table.documents tbody tr").filter(has_text="Kestrels")).to_have_count(1)
    page.get_by_role("button", name="Rename field-notes").click()
    field = page.get_by_label("New name for field-notes")
    field.fill("scratch")
    field.press("Enter")
    expect(notes.get_by_role("alert")).to_contain_text("already a collection named")
    field.fill("Bird notes")
    field.press("Enter")
    expect(rows.filter(has_text="Bird notes")).to_have_count(1)
    expect(page.get_by_label("Collection", exact=True)).to_have_value("Bird notes")
    expect(page.locator("table.documents tbody tr").filter(has_text="Kestrels")).to_have_count(1)

    # Removed after asking in the row.
    scratch = page.locator("table.collections tr[data-collection='scratch']")
    scratch.get_by_role("button", name="Remove the collection scratch").click()
    expect(scratch).to_contain_text("Remove scratch and its 1 document?")
    screenshot(page, "documents-collection-remove")
    scratch.get_by_role("button", name="Remove", exact=True).click()
    expect(scratch).to_have_count(0)
    listed = page.request.get(stub_server.url + "/api/v1/collections").json()
    assert [c["collection"] for c in listed] == ["Bird notes"], listed


@pytest.mark.skipif(not os.environ.get("SIBYL_TEST_PINECONE_URL"), reason="no Pinecone mock (SIBYL_TEST_PINECONE_URL; scripts/test.sh starts one)")
def test_pinecone_is_chosen_from_the_settings_page(context):
    mock = os.environ["SIBYL_TEST_PINECONE_URL"]
    with fresh_server({"SIBYL_SERVE_AUTH": "none", "SIBYL_EMBEDDINGS_PROVIDER": "local", "SIBYL_PINECONE_CONTROL_URL": f"{mock}/control"}) as server:
        page = context.new_page()
        page.goto(server.url + "/#/documents")
        expect(page.locator("#drop-zone")).to_be_visible()
        drop(page, "#drop-zone", "kestrels.md", NOTE, "text/markdown")
        expect(page.locator(".uploads li[data-file='kestrels.md']")).to_have_attribute("data-state", "done", timeout=120_000)

        page.goto(server.url + "/#/settings")
        card = page.locator("section").filter(has=page.get_by_role("heading", name="Where documents' vectors are searched"))
        expect(card).to_contain_text("Vectors are searched in the knowledge base. Add a Pinecone key above")
        page.get_by_label("Pinecone key (optional)").fill("test-key")
        page.get_by_role("button", name="Save and check").click()
        expect(page.get_by_label("New index")).to_be_visible()
        page.get_by_label("New index").fill("Not Valid!")
        page.get_by_role("button", name="Create and use").click()
        expect(card.get_by_role("alert")).to_contain_text("lower-case letters")
        name = f"sibyl-page-{int(time.time() * 1000) % 10**8}"
        page.get_by_label("New index").fill(name)
        page.get_by_role("button", name="Create and use").click()
        expect(card.get_by_role("status")).to_have_text(f"Vectors are searched in the Pinecone index {name}.", timeout=60_000)
        expect(card.locator(f"tr[data-index='{name}']")).to_contain_text("In use")
        assert "test-key" not in page.content(), "the key is never shown"
        every_theme(page, "settings-pinecone")

        page.goto(server.url + "/#/documents")
        expect(page.locator("table.collections tbody tr").filter(has_text="default")).to_contain_text("Pinecone, namespace default")

        page.goto(server.url + "/#/settings")
        card.get_by_role("button", name="Search in the knowledge base instead").click()
        expect(card.get_by_role("status")).to_have_text("Vectors are searched in the knowledge base.")


def test_a_new_embedding_model_warns_then_re_embeds_with_progress(model_stub, context):
    # Embeddings from the provider (the stub) at first: a base URL and no local choice.
    with fresh_server({"SIBYL_SERVE_AUTH": "none", "OPENAI_BASE_URL": model_stub.url, "OPENAI_API_KEY": "sk-stub-0000"}) as server:
        page = context.new_page()
        page.goto(server.url + "/#/documents")
        expect(page.locator("#drop-zone")).to_be_visible()
        drop(page, "#drop-zone", "kestrels.md", NOTE, "text/markdown")
        expect(page.locator(".uploads li[data-file='kestrels.md']")).to_have_attribute("data-state", "done", timeout=120_000)
        before = page.request.get(server.url + "/api/v1/collections").json()
        assert before[0]["embeddingModel"] == "text-embedding-3-small", before

        page.goto(server.url + "/#/settings")
        picker = page.get_by_label("Document search model (embeddings)")
        expect(picker).to_have_value("text-embedding-3-small")
        picker.select_option("all-MiniLM-L6-v2")
        notice = page.locator(".reembed")
        expect(notice).to_contain_text("Changing the model embeds your 1 document again with all-MiniLM-L6-v2")
        # Cancelled: nothing changes.
        notice.get_by_role("button", name="Cancel").click()
        expect(picker).to_have_value("text-embedding-3-small")
        picker.select_option("all-MiniLM-L6-v2")
        screenshot(page, "settings-reembed-warning")
        notice.get_by_role("button", name="Change and re-embed").click()
        expect(notice).to_contain_text("Re-embedded 1 document with all-MiniLM-L6-v2.", timeout=120_000)
        expect(notice.locator("progress")).to_have_attribute("value", "1")
        after = page.request.get(server.url + "/api/v1/collections").json()
        assert after[0]["embeddingModel"] == "all-MiniLM-L6-v2", after
        found = page.request.get(server.url + "/api/v1/search?q=voles").json()
        assert found and "voles" in found[0]["text"], found
        # The larger local model (embeddings-large) is offered beside MiniLM and re-embeds too.
        picker.select_option("all-mpnet-base-v2")
        notice.get_by_role("button", name="Change and re-embed").click()
        expect(notice).to_contain_text("Re-embedded 1 document with all-mpnet-base-v2.", timeout=300_000)
        larger = page.request.get(server.url + "/api/v1/collections").json()
        assert larger[0]["embeddingModel"] == "all-mpnet-base-v2", larger
        setting = page.request.get(server.url + "/api/v1/settings/embeddings.local_model").json()
        assert setting["value"] == "all-mpnet-base-v2" or setting["value"] == "large", setting
        found = page.request.get(server.url + "/api/v1/search?q=what do kestrels hunt").json()
        assert found and "voles" in found[0]["text"], found
