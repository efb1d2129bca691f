#!/usr/bin/env python3
"""Measures llama-server with and without speculative decoding (a draft model) on grounded
prompts like Sibyl's: time to first token, tokens per second written, and total time.

Usage: speculative-decoding.py --server BIN --model GGUF --draft GGUF [--threads 2] [--prompts N]

Each configuration gets a fresh server on a free port; the same prompts (a grounding system
prompt with passages from python3.11-doc, a question) are sent to both, at temperature 0, and
the answers are compared (speculative decoding must not change a greedy answer).
"""
import argparse, json, os, socket, subprocess, sys, time, urllib.request

PASSAGE = ("math.comb(n, k) Return the number of ways to choose k items from n items without repetition and without "
           "order. Evaluates to n! / (k! * (n - k)!) when k <= n and evaluates to zero when k > n. Also called the "
           "binomial coefficient because it is equivalent to the coefficient of k-th term in polynomial expansion of "
           "(1 + x)^n. Raises TypeError if either of the arguments are not integers. Raises ValueError if either of the "
           "arguments are negative. New in version 3.8. ")
QUESTIONS = [
    "In which version of Python was math.comb added? Explain what it computes.",
    "What does math.comb return when k is larger than n?",
    "Which errors can math.comb raise, and when?",
    "Why is math.comb also called the binomial coefficient?",
    "Write one sentence a beginner would understand about math.comb.",
    "Summarise the source in two sentences.",
]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(server, model, draft, threads):
    port = free_port()
    args = [server, "--model", model, "--host", "127.0.0.1", "--port", str(port), "--ctx-size", "4096",
            "--parallel", "1", "--threads", str(threads)]
    if draft:
        args += ["--spec-draft-model", draft, "--spec-draft-threads", str(threads)]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                if r.status == 200:
                    return process, port
        except Exception:
            time.sleep(0.5)
    process.kill()
    sys.exit("llama-server did not start")


def ask(port, question, max_tokens):
    system = ("Answer the user's question in words, using only the numbered sources below. After each statement, cite "
              "the source it comes from with its number in square brackets.\n\nSources:\n\n" +
              "\n\n".join(f"[{n}] math — Mathematical functions\n{PASSAGE}" for n in (1, 2, 3)))
    body = json.dumps({"messages": [{"role": "system", "content": system}, {"role": "user", "content": question}],
                       "stream": True, "temperature": 0, "max_tokens": max_tokens, "cache_prompt": False}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions", data=body,
                                     headers={"Content-Type": "application/json"})
    started = time.perf_counter()
    first = None
    text = ""
    with urllib.request.urlopen(request, timeout=600) as response:
        for line in response:
            line = line.decode().strip()
            if not line.startswith("data: ") or line == "data: [DONE]":
                continue
            delta = json.loads(line[6:])["choices"][0]["delta"].get("content") or ""
            if delta and first is None:
                first = time.perf_counter() - started
            text += delta
    return first, time.perf_counter() - started, text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument("--draft", required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--max-tokens", type=int, default=96)
    args = parser.parse_args()
    results = {}
    for name, draft in (("plain", None), ("speculative", args.draft)):
        process, port = start(args.server, args.model, draft, args.threads)
        try:
            ask(port, "Warm up.", 8)
            runs = [ask(port, q, args.max_tokens) for q in QUESTIONS]
        finally:
            process.terminate()
            process.wait()
        firsts = sorted(r[0] for r in runs)
        totals = [r[1] for r in runs]
        results[name] = {"median_first_token_s": firsts[len(firsts) // 2], "total_s": sum(totals),
                         "answers": [r[2] for r in runs]}
        print(f"{name:12} first token median {results[name]['median_first_token_s']:.2f} s · all {len(QUESTIONS)} answers {sum(totals):.1f} s", flush=True)
    same = sum(a == b for a, b in zip(results["plain"]["answers"], results["speculative"]["answers"]))
    print(f"speculative / plain total time: {results['speculative']['total_s'] / results['plain']['total_s']:.2f}× · identical greedy answers: {same}/{len(QUESTIONS)}")


if __name__ == "__main__":
    main()
