"""The UI as an installable web app: a manifest with the icons launchers need, a service worker
that keeps the shell, so the installed app opens without the network (and says plainly that
answers need the server), and nothing of the API kept."""

import struct

from playwright.sync_api import expect


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


def test_the_manifest_names_the_app_and_its_icons(stub_server, context):
    page = context.new_page()
    page.goto(stub_server.url + "/")
    href = page.locator("link[rel=manifest]").get_attribute("href")
    response = page.request.get(stub_server.url + href)
    assert response.ok and response.headers["content-type"].startswith("application/manifest+json")
    manifest = response.json()
    assert (manifest["name"], manifest["start_url"], manifest["display"], manifest["scope"]) == ("Sibyl", "/", "standalone", "/")
    sizes = {}
    for icon in manifest["icons"]:
        fetched = page.request.get(stub_server.url + icon["src"])
        assert fetched.ok, icon
        if icon["type"] == "image/png":
            width, height = png_size(fetched.body())
            assert icon["sizes"] == f"{width}x{height}", icon
            sizes.setdefault(icon["purpose"], set()).add(width)
    # What Chromium asks of an installable app: 192 and 512 pixel icons, and one a launcher may crop.
    assert {192, 512} <= sizes["any"] and 512 in sizes["maskable"], sizes


def test_the_installed_app_opens_without_the_network_and_keeps_no_answers(stub_server, context_with_worker):
    context = context_with_worker
    page = context.new_page()
    page.goto(stub_server.url + "/#/chat")
    expect(page.get_by_label("Your question")).to_be_visible()
    scope = page.evaluate("navigator.serviceWorker.ready.then((registration) => registration.scope)")
    assert scope == stub_server.url + "/"
    # A load under the worker fills its cache with the shell.
    page.reload()
    expect(page.get_by_label("Your question")).to_be_visible()
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    kept = page.evaluate("""async () => {
        const cache = await caches.open('sibyl-shell');
        return (await cache.keys()).map((request) => new URL(request.url).pathname);
    }""")
    assert "/" in kept and "/assets/app.js" in kept and "/assets/view-chat.js" in kept, kept
    assert not [path for path in kept if path.startswith("/api/") or path.startswith("/v1/")], kept
    # Offline, the app still opens and says what it cannot do.
    context.set_offline(True)
    try:
        page.goto(stub_server.url + "/#/documents")
        page.reload()
        expect(page.get_by_role("alert")).to_contain_text("Sibyl's server cannot be reached")
        expect(page.locator("header .brand")).to_be_visible()
    finally:
        context.set_offline(False)
    # Back on the network, it works again.
    page.goto(stub_server.url + "/#/chat")
    page.reload()
    expect(page.get_by_label("Your question")).to_be_visible()
