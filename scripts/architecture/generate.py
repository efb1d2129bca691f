#!/usr/bin/env python3
"""Writes docs/ARCHITECTURE.md from Package.swift (through `swift package dump-package`): every
target, its layer, what it depends on, and a graph of the package's own targets; and checks that
no target depends on one in a layer above its own.

    scripts/architecture/generate.py          # rewrite docs/ARCHITECTURE.md
    scripts/architecture/generate.py --check  # fail when the page is out of date or a layer is crossed upwards
"""
import json, subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "ARCHITECTURE.md"

# Layers, lowest first: a target may depend on targets of its own layer or below, never above.
LAYERS = [
    ("Core", "value types and capability protocols; no I/O", ["SibylCore", "VectorIndexLayout"]),
    ("Kernels and system libraries", "SIMD kernels compiled per instruction set, and the C libraries Sibyl links",
     ["VectorIndexAVX512", "VectorIndexAVX2", "TextEmbeddingAVX512", "TextEmbeddingAVX2", "CBLAS", "CPoppler", "CLua", "CFrameLua", "CDBus", "COnnxRuntime"]),
    ("Adapters", "implement SibylCore's protocols over a library, a service, a file format or a device protocol",
     ["OpenAIClient", "MCPToolbox", "Storage", "Accounts", "Tokenizers", "TextEmbedding", "LocalEngines", "SibylConfig", "VectorIndex", "DocumentExtraction",
      "SecureDFU", "FrameProtocol"]),
    ("Product logic", "knowledge and search; the glasses core and its drivers; emulators of the glasses",
     ["Knowledge", "Glasses", "Monocle", "FrameGlasses", "MonocleEmulator", "FrameEmulator", "GlassesBluetooth", "GlassesRelay"]),
    ("Back ends", "where a shared installation keeps its data", ["PostgresStorage", "PineconeVectors"]),
    ("Assistant core", "the conversation engine, grounding, personas, the glasses assistant, the use cases' values, Wire; links no back end",
     ["Assistant"]),
    ("Application", "composes the runtime (providers, local engines, back ends) and runs the use cases", ["SibylApp"]),
    ("Test support", "libraries the tests (and the benchmarks' scripted model) share", ["OpenAITestServer", "APIContract", "TestDatabase", "TestEvents", "SibylTestSupport", "TestFixtures", "TestPDFs", "FrameOracle"]),
    ("Shells", "translate input and output: the CLI, the HTTP server, the MCP server, the benchmarks", ["SibylMCP", "SibylServer", "SibylCLI", "sibyl", "SibylBenchmarks", "TokenizerBenchmark"]),
]
# Left out of the graph, to keep it readable.
UNDRAWN = {"Kernels and system libraries", "Test support"}


def package():
    text = subprocess.run(["swift", "package", "dump-package"], cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(text)


def dependencies(target):
    own, products = [], []
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        if kind in ("byName", "target"):
            own.append(value[0])
        elif kind == "product":
            products.append(value[0])
    return own, products


def render(data):
    targets = {t["name"]: t for t in data["targets"]}
    layer_of = {name: index for index, (_, _, names) in enumerate(LAYERS) for name in names}
    problems = []
    regular = [t for t in data["targets"] if t["type"] != "test"]
    for target in regular:
        if target["name"] not in layer_of:
            problems.append(f"{target['name']} has no layer: add it to LAYERS in scripts/architecture/generate.py")
    lines = [
        "# Sibyl's targets",
        "",
        "Generated from `Package.swift` by `scripts/architecture/generate.py`; `scripts/test.sh` fails when",
        "this page and the manifest disagree, or when a target depends on one in a layer above its own.",
        "Layers from the bottom up; a target depends only on its own layer and those below.",
        "",
    ]
    for index, (title, summary, names) in enumerate(LAYERS):
        lines += [f"## {index + 1}. {title}", "", summary[0].upper() + summary[1:] + ".", "", "| Target | Depends on (Sibyl's own) | Libraries |", "|---|---|---|"]
        for name in names:
            if name not in targets:
                problems.append(f"{name} is in LAYERS but not in Package.swift")
                continue
            own, products = dependencies(targets[name])
            for dependency in own:
                if layer_of.get(dependency, -1) > index:
                    problems.append(f"{name} ({title}) depends on {dependency}, which is in a layer above it")
            lines.append(f"| {name} | {', '.join(own) or '–'} | {', '.join(products) or '–'} |")
        lines.append("")
    tests = [t for t in data["targets"] if t["type"] == "test"]
    lines += ["## Tests", "", "One test target per source target it covers.", "", "| Test target | Tests with |", "|---|---|"]
    for target in tests:
        own, _ = dependencies(target)
        lines.append(f"| {target['name']} | {', '.join(own)} |")
    lines += ["", "## Graph", "", "Sibyl's own targets (kernels, system libraries and test support left out).", "", "```mermaid", "graph BT"]
    shown = {name for title, _, names in LAYERS if title not in UNDRAWN for name in names}
    for target in regular:
        if target["name"] not in shown:
            continue
        own, _ = dependencies(target)
        for dependency in own:
            if dependency in shown:
                lines.append(f"    {target['name']} --> {dependency}")
    lines += ["```", ""]
    return "\n".join(lines), problems


def main():
    text, problems = render(package())
    for problem in problems:
        print(f"architecture: {problem}", file=sys.stderr)
    if "--check" in sys.argv:
        if not PAGE.exists() or PAGE.read_text() != text:
            print("architecture: docs/ARCHITECTURE.md is out of date: run scripts/architecture/generate.py", file=sys.stderr)
            sys.exit(1)
    else:
        PAGE.write_text(text)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
