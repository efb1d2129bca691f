"""Renders the installable web app's PNG icons from Sources/SibylServer/Resources/Web/icon.svg in
headless Chromium (run with the browser suite's Python: $(scripts/browser/setup.sh)):
icon-192.png and icon-512.png as drawn, and icon-maskable-512.png with the mark inside the safe
circle (80 % of the side) on a full square, for launchers that crop icons to their own shape."""

import pathlib

from playwright.sync_api import sync_playwright

WEB = pathlib.Path(__file__).resolve().parents[2] / "Sources/SibylServer/Resources/Web"
SVG = (WEB / "icon.svg").read_text()


def render(page, size: int, maskable: bool, name: str):
    mark = 0.64 if maskable else 1.0
    page.set_viewport_size({"width": size, "height": size})
    page.set_content(f"""<!DOCTYPE html><html><body style="margin:0;width:{size}px;height:{size}px;display:grid;place-items:center;
        background:{'#3d5afe' if maskable else 'transparent'}"><div style="width:{size * mark}px;height:{size * mark}px">{SVG}</div>
        <style>svg{{width:100%;height:100%;display:block}}</style></body></html>""")
    page.screenshot(path=str(WEB / name), omit_background=not maskable)


with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium")
    page = browser.new_page()
    render(page, 192, False, "icon-192.png")
    render(page, 512, False, "icon-512.png")
    render(page, 512, True, "icon-maskable-512.png")
    browser.close()
