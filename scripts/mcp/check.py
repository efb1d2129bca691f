#!/usr/bin/env python3
"""Drives Sibyl's MCP server with the official Model Context Protocol Python SDK (`mcp`).

Usage:
  check.py stdio --sibyl PATH [--allow-folder DIR] [--outside FILE]     (SIBYL_HOME etc. from the environment)
  check.py http --url http://127.0.0.1:PORT/mcp --token TOKEN [--other-token TOKEN]

Both: the tools are listed, a note is added as text and found again (list, search, its text as a
resource), a question the documents cannot answer is declined with the closest passages, the
personas are prompts and recent conversations are listed. stdio with --allow-folder also adds a
file from that folder and is refused one outside it (--outside). http with --other-token checks
that a second account sees none of the first one's documents. Prints one line per check
(PASS/FAIL) and exits 0 only when every check passed.
"""
import argparse
import asyncio
import json
import sys
from pathlib import Path

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

NOTE = ("# Kestrel Lane office\n\nThe staff wifi password at the Kestrel Lane office is violet-harbor-42. "
        "The office opens at 8:00 and closes at 18:00.\n")
TOOLS = {"search_documents", "ask_documents", "list_documents", "add_document", "recent_conversations"}
results: list[tuple[str, bool, str]] = []


class CheckFailed(Exception):
    pass


def expect(condition, message):
    if not condition:
        raise CheckFailed(message)


async def check(name, body):
    try:
        detail = await body()
        results.append((name, True, detail or ""))
        print(f"PASS {name} {detail or ''}".rstrip(), flush=True)
    except Exception as error:  # a check's failure is reported, and the others still run
        results.append((name, False, repr(error)))
        print(f"FAIL {name}: {error!r}", flush=True)


def text_of(result):
    return "\n".join(part.text for part in result.content if getattr(part, "type", "") == "text")


async def common_checks(session: ClientSession, label: str):
    state = {}

    async def tools():
        names = {tool.name for tool in (await session.list_tools()).tools}
        expect(TOOLS <= names, f"missing tools: {TOOLS - names}")
        return f"{len(names)} tools"

    async def add_text():
        result = await session.call_tool("add_document", {"text": NOTE, "title": f"Kestrel handbook {label}"})
        expect(not result.isError, text_of(result))
        report = result.structuredContent
        expect(report and report["added"], f"nothing added: {report}")
        state["id"] = report["added"][0]["id"]
        return f"document {state['id']}"

    async def listed():
        result = await session.call_tool("list_documents", {})
        documents = result.structuredContent["documents"]
        expect(any(document["id"] == state.get("id") for document in documents), f"not listed: {documents}")
        return f"{len(documents)} documents"

    async def search():
        result = await session.call_tool("search_documents", {"query": "staff wifi password", "limit": 3})
        expect(not result.isError, text_of(result))
        passages = result.structuredContent["passages"]
        expect(passages and "violet-harbor-42" in passages[0]["text"], f"the note is not first: {passages}")
        expect(passages[0]["documentId"] == state.get("id") and passages[0]["score"] > 0, passages[0])
        expect("violet-harbor-42" in text_of(result), "the passage is in the text content too")
        return f"score {passages[0]['score']:.3f}"

    async def bad_arguments():
        result = await session.call_tool("search_documents", {"query": "wifi", "limit": 500})
        expect(result.isError and "limit" in text_of(result), text_of(result))
        return "refused in words"

    async def resources():
        uris = [str(resource.uri) for resource in (await session.list_resources()).resources]
        uri = f"sibyl://documents/{state.get('id')}"
        expect(uri in uris, f"{uri} not in {uris}")
        contents = (await session.read_resource(uri)).contents
        expect("violet-harbor-42" in contents[0].text, contents[0].text[:200])
        return uri

    async def declined():
        result = await session.call_tool("ask_documents", {"question": "Which moon of Neptune did the Voyager 2 probe photograph in 1989?"})
        answer = result.structuredContent
        expect(answer["status"] == "declined", f"not declined: {answer['status']}: {answer['answer'][:200]}")
        expect(answer["closest"] is not None, "the closest passages come with a decline")
        return answer["answer"][:60]

    async def prompts():
        names = [prompt.name for prompt in (await session.list_prompts()).prompts]
        expect("concise" in names, names)
        prompt = await session.get_prompt("concise", {"question": "What is MCP?"})
        expect(len(prompt.messages) == 2 and prompt.messages[1].content.text == "What is MCP?", prompt.messages)
        return f"{len(names)} personas"

    async def recent():
        result = await session.call_tool("recent_conversations", {"limit": 5})
        conversations = result.structuredContent["conversations"]
        expect(any(conversation["source"] == "mcp" for conversation in conversations), conversations)
        return f"{len(conversations)} conversations"

    for name, body in [("tools", tools), ("add_text", add_text), ("list", listed), ("search", search), ("bad_arguments", bad_arguments),
                       ("resources", resources), ("declined", declined), ("prompts", prompts), ("recent", recent)]:
        await check(f"{label}:{name}", body)
    return state


async def run_stdio(args):
    command = [args.sibyl, "mcp"] + (["--allow-folder", args.allow_folder] if args.allow_folder else [])
    import os
    parameters = StdioServerParameters(command=command[0], args=command[1:], env=dict(os.environ))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write) as session:
            info = await session.initialize()
            print(f"connected to {info.serverInfo.name} {info.serverInfo.version}", flush=True)
            await common_checks(session, "stdio")
            if args.allow_folder:
                async def add_file():
                    file = next(path for path in sorted(Path(args.allow_folder).iterdir()) if path.is_file())
                    result = await session.call_tool("add_document", {"path": str(file)})
                    expect(not result.isError, text_of(result))
                    return file.name

                async def outside():
                    result = await session.call_tool("add_document", {"path": args.outside})
                    expect(result.isError and "outside" in text_of(result), text_of(result))
                    return "refused"

                await check("stdio:add_file", add_file)
                if args.outside:
                    await check("stdio:outside", outside)


async def connect_http(url, token):
    return streamable_http_client(url, http_client=create_mcp_http_client(headers={"Authorization": f"Bearer {token}"}))


async def run_http(args):
    async with await connect_http(args.url, args.token) as (read, write, session_id):
        async with ClientSession(read, write) as session:
            info = await session.initialize()
            print(f"connected to {info.serverInfo.name} {info.serverInfo.version} (session {session_id()})", flush=True)
            state = await common_checks(session, "http")
    if args.other_token:
        async with await connect_http(args.url, args.other_token) as (read, write, _):
            async with ClientSession(read, write) as session:
                await session.initialize()

                async def nothing_of_the_first():
                    documents = (await session.call_tool("list_documents", {})).structuredContent["documents"]
                    expect(documents == [], f"the second account sees {documents}")
                    found = (await session.call_tool("search_documents", {"query": "staff wifi password"})).structuredContent["passages"]
                    expect(all("violet-harbor-42" not in passage["text"] for passage in found), found)
                    try:
                        await session.read_resource(f"sibyl://documents/{state.get('id')}")
                        raise CheckFailed("the first account's document was read")
                    except CheckFailed:
                        raise
                    except Exception:
                        pass
                    return "none"

                await check("http:second_account", nothing_of_the_first)


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="transport", required=True)
    stdio = sub.add_parser("stdio")
    stdio.add_argument("--sibyl", required=True)
    stdio.add_argument("--allow-folder")
    stdio.add_argument("--outside")
    http = sub.add_parser("http")
    http.add_argument("--url", required=True)
    http.add_argument("--token", required=True)
    http.add_argument("--other-token")
    args = parser.parse_args()
    asyncio.run(run_stdio(args) if args.transport == "stdio" else run_http(args))
    failed = [name for name, passed, _ in results if not passed]
    print(json.dumps({"passed": len(results) - len(failed), "failed": failed}))
    sys.exit(1 if failed or not results else 0)


if __name__ == "__main__":
    main()
