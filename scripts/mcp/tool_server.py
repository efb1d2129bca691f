"""A small MCP server, written with the official MCP Python SDK, for testing Sibyl as an MCP client.

It keeps a made-up warehouse inventory (facts no model knows) and offers:
  stock_level(item, site)  how many of an item a site holds
  list_sites()             the sites
  broken(reason)           always fails, with the reason given
  environment_names()      the names of the environment variables the server was started with

Run: python tool_server.py            (stdio, as Sibyl starts a command)
     python tool_server.py --http PORT (streamable HTTP at http://127.0.0.1:PORT/mcp; port 0 picks
                                        a free one; "listening on PORT" goes to standard error)

Every call is appended to the file named by TOOL_SERVER_LOG, when set, as one JSON line: the test
reads what reached the server.
"""

import json
import os
import socket
import sys

from mcp.server.fastmcp import FastMCP

INVENTORY = {
    ("cloudberry jam", "tromso"): 42,
    ("cloudberry jam", "bergen"): 7,
    ("lingonberry jam", "tromso"): 0,
    ("lingonberry jam", "bergen"): 118,
}
SITES = {"tromso": "Tromsø warehouse, Storgata 9", "bergen": "Bergen warehouse, Bryggen 3"}



def http_port():
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 8000
    if port == 0:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    return port


PORT = http_port() if len(sys.argv) > 1 and sys.argv[1] == "--http" else 8000
server = FastMCP("warehouse", host="127.0.0.1", port=PORT)


def record(tool, arguments):
    path = os.environ.get("TOOL_SERVER_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as log:
            log.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


@server.tool()
def stock_level(item: str, site: str) -> str:
    """How many crates of an item a warehouse site holds now (sites: tromso, bergen)."""
    record("stock_level", {"item": item, "site": site})
    key = (item.strip().lower(), site.strip().lower())
    if key[1] not in SITES:
        raise ValueError(f"there is no site named {site}; the sites are {', '.join(sorted(SITES))}")
    count = INVENTORY.get(key, 0)
    return f"The {SITES[key[1]]} holds {count} crates of {key[0]}."


@server.tool()
def list_sites() -> str:
    """The warehouse sites and their addresses."""
    record("list_sites", {})
    return "\n".join(f"{code}: {address}" for code, address in sorted(SITES.items()))


@server.tool()
def broken(reason: str) -> str:
    """A tool that always fails (for testing how failures are shown)."""
    record("broken", {"reason": reason})
    raise RuntimeError(f"the inventory database is unreachable: {reason}")


@server.tool()
def environment_names() -> str:
    """The names of the environment variables this server was started with."""
    record("environment_names", {})
    return " ".join(sorted(os.environ))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--http":
        print(f"listening on {PORT}", file=sys.stderr, flush=True)
        server.run(transport="streamable-http")
    else:
        server.run()
