"""Setting up Brilliant's Noa phone app from the Settings page: the card says what to type into each
of the app's Custom Server fields (API Endpoint, API Header Key, API Header Value), makes a
read-only token that really works from outside the browser, draws a QR code of the address, and
keeps what the app's answers do; on a server without accounts it says no header is needed."""

import json
import re
import shutil
import subprocess
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import expect

from conftest import PASSWORD, SCREENSHOTS, every_theme, fresh_server

TITLE = "Use with Brilliant's Noa app"


@pytest.fixture(scope="module")
def reachable_server():
    """A server with accounts listening on every interface, as one a phone on the network can reach."""
    with fresh_server({"SIBYL_SERVE_AUTH": "accounts"}, host="0.0.0.0") as server:
        server.cli("users", "add", "ada", "--admin", "--password-stdin", stdin=PASSWORD + "\n")
        yield server


@pytest.fixture(scope="module")
def open_server():
    """A server without accounts (loopback only)."""
    with fresh_server({"SIBYL_SERVE_AUTH": "none"}) as server:
        yield server


def call(url: str, secret: str | None, method: str = "GET", body=None) -> tuple[int, bytes]:
    """A request from outside the browser, as the app makes it: the status and the body."""
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    data = None
    if body is not None:
        data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # 127.0.0.1, never through a proxy
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def noa_card(page):
    return page.locator("section").filter(has=page.get_by_role("heading", name=TITLE, level=2))


def signed_in_settings(page, server):
    page.goto(server.url + "/")
    page.get_by_label("Name").fill("ada")
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.locator("#account-name")).to_have_text("ada")
    page.goto(server.url + "/#/settings")
    expect(noa_card(page)).to_be_visible()
    return noa_card(page)


def test_the_card_makes_a_token_the_app_can_use(reachable_server, context, tmp_path):
    url = reachable_server.url
    context.grant_permissions(["clipboard-read", "clipboard-write"], origin=url)
    page = context.new_page()
    card = signed_in_settings(page, reachable_server)
    setup = page.evaluate("fetch('/api/v1/noa/setup').then((response) => response.json())")
    assert setup["tokenRequired"] is True and setup["loopbackOnly"] is False, setup
    assert setup["endpoints"], f"a server on 0.0.0.0 offers the phone an address (this machine has none but loopback?): {setup}"
    expect(card.get_by_text("Custom Server")).to_be_visible()

    # API Endpoint: the server's best address for a phone, as text and as a QR code.
    endpoint = card.locator("#noa-endpoint")
    expect(endpoint).to_be_visible()
    shown = endpoint.evaluate("element => element.value ?? element.textContent")
    assert shown == setup["endpoints"][0]
    assert re.fullmatch(r"https?://[^/]+/api/v1/noa", shown) and "127.0.0.1" not in shown, shown
    qr = card.get_by_role("img", name=f"QR code of {shown}")
    expect(qr).to_be_visible()
    box = qr.bounding_box()
    assert box["width"] >= 100 and abs(box["width"] - box["height"]) < 1, box
    modules = qr.locator("path").get_attribute("d").count("M")
    assert modules > 100, f"a QR code of a URL has hundreds of dark modules, not {modules}"
    if shutil.which("zbarimg"):  # Debian's zbar-tools, where installed: the code scans as the address
        qr.screenshot(path=str(tmp_path / "qr.png"))
        scanned = subprocess.run(["zbarimg", "--raw", "-q", str(tmp_path / "qr.png")], capture_output=True, text=True, timeout=30)
        assert scanned.stdout.strip() == shown, scanned

    # A read-only token, shown once, with what to type where.
    card.get_by_role("button", name="Make a token for the app").click()
    value = card.locator("#noa-header-value")
    expect(value).to_have_text(re.compile(r"^Bearer sibyl_\S+$"))
    expect(card.locator("#noa-header-key")).to_have_text("Authorization")
    expect(card.get_by_text("Shown only now")).to_be_visible()
    header = value.text_content()
    secret = header.removeprefix("Bearer ")
    card.get_by_role("button", name="Copy API Header Value").click()
    expect(page.locator("#toast")).to_have_text("API Header Value copied.")
    assert page.evaluate("navigator.clipboard.readText()") == header

    # The token works for the app outside the browser, and may not change anything.
    assert call(url + "/api/v1/noa/setup", None)[0] == 401
    status, body = call(url + "/api/v1/noa/setup", secret)
    assert status == 200 and json.loads(body)["endpoints"] == setup["endpoints"], (status, body)
    status, body = call(url + "/api/v1/settings/chat.temperature", secret, "PUT", {"value": "0.5"})
    assert status == 403, (status, body)

    # What the app's answers do: kept as settings, still there after a reload.
    documents = card.get_by_label("Answer from my documents")
    documents.check()
    expect(page.locator("#toast")).to_have_text("Saved.")
    spoken = card.get_by_label("The language I speak")
    spoken.fill("EN")
    spoken.press("Tab")
    expect(page.locator("#toast")).to_have_text("Saved.")
    page.evaluate("document.getElementById('toast').textContent = ''")
    language = card.get_by_label("Translate what I say into")
    language.fill("Korean")
    language.press("Tab")
    expect(page.locator("#toast")).to_have_text("Saved.")
    # The persona and the voice the glasses' answers use (relayed Monocle and Frame follow them too).
    page.evaluate("document.getElementById('toast').textContent = ''")
    expect(card.get_by_label("Persona")).to_have_value("concise")
    card.get_by_label("Persona").select_option("assistant")
    expect(page.locator("#toast")).to_have_text("Saved.")
    expect(card.locator("p.error")).to_have_text("")
    every_theme(page, "settings-noa")
    page.evaluate("document.getElementById('toast').textContent = ''")
    card.scroll_into_view_if_needed()
    SCREENSHOTS.mkdir(exist_ok=True)
    # The picture goes into the README: no real secret in it, even a dead one.
    page.evaluate("document.getElementById('noa-header-value').textContent = 'Bearer sibyl_EXAMPLE-shown-once-copy-it-now'")
    card.screenshot(path=str(SCREENSHOTS / "settings-noa.png"))

    page.reload()
    card = noa_card(page)
    expect(card.get_by_label("Answer from my documents")).to_be_checked()
    expect(card.get_by_label("Send the answer as speech too", exact=False)).not_to_be_checked()
    expect(card.get_by_label("Translate what I say into")).to_have_value("Korean")
    expect(card.get_by_label("The language I speak")).to_have_value("en")
    expect(card.get_by_label("Persona")).to_have_value("assistant")
    assert page.request.get(url + "/api/v1/settings/glasses.persona").json()["value"] == "assistant"
    expect(card.locator("#noa-header-value")).to_have_count(0)  # the secret is never shown again
    # Emptying the language turns translation off (the setting goes back to its default).
    card.get_by_label("Translate what I say into").fill("")
    card.get_by_label("Translate what I say into").press("Tab")
    expect(page.locator("#toast")).to_have_text("Saved.")
    saved = page.evaluate("fetch('/api/v1/settings/glasses.translate_to').then((response) => response.json())")
    assert saved.get("value") in (None, ""), saved

    # The token is listed in the card, and revoking it there shuts the app out.
    revoke = card.get_by_role("button", name=re.compile(r"^Revoke the token "))
    expect(revoke).to_have_count(1)
    revoke.click()
    expect(revoke).to_have_count(0)
    assert call(url + "/api/v1/noa/setup", secret)[0] == 401


def test_without_the_qr_library_the_address_is_still_shown(reachable_server, context):
    page = context.new_page()
    page.route("**/vendor/qrcode.js", lambda route: route.fulfill(status=404, body=""))
    card = signed_in_settings(page, reachable_server)
    expect(card.locator("#noa-endpoint")).to_be_visible()
    expect(card.get_by_text("needs Debian's node-qrcode-generator")).to_be_visible()
    expect(card.locator("svg")).to_have_count(0)


def test_without_accounts_no_header_is_needed(open_server, context):
    page = context.new_page()
    failed = []
    page.on("response", lambda response: failed.append(f"{response.status} {response.request.method} {response.url}") if response.status >= 400 else None)
    page.goto(open_server.url + "/#/settings")
    card = noa_card(page)
    expect(card).to_be_visible()
    expect(card.get_by_text("leave API Header Key and API Header Value empty")).to_be_visible()
    expect(card.get_by_role("button", name="Make a token for the app")).to_have_count(0)
    # It listens on 127.0.0.1 only: the card says how to let a phone reach it.
    expect(card.get_by_text("sibyl serve --host 0.0.0.0")).to_be_visible()
    expect(card.locator("svg")).to_have_count(0)
    page.wait_for_load_state("networkidle")
    assert failed == [], failed
