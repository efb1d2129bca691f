"""Answers that call a tool of the user's MCP server (scripts/mcp/tool_server.py, written with the
official MCP Python SDK, started by Sibyl): the call shows in the thread as it is made, and stays
among the answer's sources with what the tool returned."""

import json
import os
import subprocess
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

from conftest import fresh_server, screenshot

ROOT = Path(__file__).resolve().parents[2]


def mcp_python() -> str:
    return os.environ.get("SIBYL_MCP_PYTHON") or subprocess.run(
        [str(ROOT / "scripts/mcp/setup.sh")], check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture(scope="module")
def tools_server(model_stub):
    servers = f"warehouse={mcp_python()} {ROOT / 'scripts/mcp/tool_server.py'}"
    with fresh_server({"OPENAI_BASE_URL": model_stub.url, "SIBYL_SERVE_AUTH": "none", "SIBYL_MAX_RETRIES": "0",
                       "SIBYL_TITLES": "first-words", "SIBYL_TOOLS_SERVERS": servers,
                       "SIBYL_TOOLS_TIMEOUT": "600"}) as server:
        # Tools are off until turned on: here through the API, as the Settings page does.
        request = urllib.request.Request(server.url + "/api/v1/settings/tools.enabled", method="PUT",
                                         data=json.dumps({"value": "on"}).encode(), headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=60).close()
        yield server


def test_a_tool_call_is_shown_and_cited_in_the_thread(tools_server, model_stub, context):
    model_stub.tool_call = {"name": "warehouse_stock_level", "arguments": '{"item": "lingonberry jam", "site": "tromso"}'}
    page = context.new_page()
    page.goto(tools_server.url + "/#/chat")
    page.get_by_label("Your question").fill("Is there lingonberry jam in Tromsø?")
    page.get_by_label("Your question").press("Enter")
    answer = page.locator(".bubble.answer").last
    expect(answer).to_have_attribute("data-status", "complete")
    expect(answer.locator(".body")).to_contain_text("holds 0 crates of lingonberry jam")
    source = answer.locator(".citations li.tool")
    expect(source).to_have_count(1)
    expect(source.locator("summary")).to_contain_text("warehouse › stock_level")
    expect(source.locator("summary code")).to_have_text('{"item": "lingonberry jam", "site": "tromso"}')
    # The [1] in the answer opens the tool's result.
    answer.locator(".body").get_by_role("button", name="Open source 1").click()
    expect(source.locator("blockquote")).to_have_text("The Tromsø warehouse, Storgata 9 holds 0 crates of lingonberry jam.")
    screenshot(page, "chat-tool-call")
    # After a reload the call is still there, from the saved answer.
    page.reload()
    expect(page.locator(".bubble.answer").last.locator(".citations li.tool summary")).to_contain_text("warehouse › stock_level")


def test_a_failed_tool_call_is_marked_and_the_answer_goes_on(tools_server, model_stub, context):
    model_stub.tool_call = {"name": "warehouse_broken", "arguments": '{"reason": "a flooded cellar"}'}
    page = context.new_page()
    page.goto(tools_server.url + "/#/chat")
    page.get_by_label("Your question").fill("Check the inventory database.")
    page.get_by_label("Your question").press("Enter")
    answer = page.locator(".bubble.answer").last
    expect(answer).to_have_attribute("data-status", "complete")
    failed = answer.locator(".citations li.tool.failed")
    expect(failed).to_have_count(1)
    expect(failed.locator("summary")).to_contain_text("tool (failed)")
    expect(answer.locator(".body")).to_contain_text("unreachable: a flooded cellar")


def test_the_settings_page_lists_the_servers_checks_them_and_turns_tools_off(tools_server, context):
    page = context.new_page()
    page.goto(tools_server.url + "/#/settings")
    card = page.locator("section", has=page.get_by_role("heading", name="Tools from your MCP servers"))
    expect(card.locator(".tool-servers > li")).to_have_count(1)
    expect(card.locator(".tool-servers")).to_contain_text("warehouse")
    switch = card.get_by_label("Let answers call these tools")
    expect(switch).to_be_checked()
    card.get_by_role("button", name="Check the servers").click()
    expect(card.get_by_role("status")).to_have_text("Every server answered.")
    expect(card.locator(".tool-servers")).to_contain_text("stock_level")
    expect(card.locator(".tool-servers")).to_contain_text("How many crates of an item")
    screenshot(page, "settings-tools")
    switch.uncheck()
    expect(page.get_by_text("Saved.")).to_be_visible()
    assert "off" in tools_server.cli("config", "get", "tools.enabled")
    page.reload()
    expect(page.get_by_label("Let answers call these tools")).not_to_be_checked()
    page.get_by_label("Let answers call these tools").check()
    expect(page.get_by_text("Saved.")).to_be_visible()
    assert "on" in tools_server.cli("config", "get", "tools.enabled")
