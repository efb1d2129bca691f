"""Fixtures for Sibyl's browser tests: a real `sibyl serve` on a fresh data directory, and
Debian's Chromium driven by Playwright. Screenshots go to `.build-ui/` in the clone."""

import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = ROOT / ".build-ui"
CHROMIUM = os.environ.get("SIBYL_CHROMIUM", "/usr/bin/chromium")
# Web Bluetooth is off in Chromium on Linux unless a feature flag turns it on (desktop users of the
# glasses page need it too); the glasses test then emulates the Monocle through CDP.
CHROMIUM_ARGS = ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream", "--autoplay-policy=no-user-gesture-required",
                 "--enable-features=WebBluetooth,WebBluetoothNewPermissionsBackend"]
QUESTION = "What is the capital of France?"
PASSWORD = "correct horse battery"


def sibyl_binary() -> str:
    binary = os.environ.get("SIBYL_BINARY") or str(Path(os.environ.get("SIBYL_CACHE", Path.home() / ".cache/sibyl")) / "swiftpm/debug/sibyl")
    if not Path(binary).exists():
        pytest.exit(f"no sibyl binary at {binary}: build it first (scripts/test.sh does)", returncode=2)
    return binary


class Watched:
    """A child process whose output (one stream of it) is collected line by line as it comes."""

    def __init__(self, name: str, process: subprocess.Popen, stream):
        self.name, self.process = name, process
        self.lines: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for line in stream:
            self.lines.append(line)

    @property
    def output(self) -> str:
        return "".join(self.lines)

    def wait_for(self, pattern: str, seconds: float) -> str:
        """The first group of the first output line that matches; fails when the process ends first."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for line in list(self.lines):
                match = re.search(pattern, line)
                if match:
                    return match.group(1)
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} ended:\n" + self.output)
            time.sleep(0.05)
        raise TimeoutError(f"{self.name} never printed {pattern!r}:\n" + self.output)


class Server(Watched):
    """A `sibyl serve` process; its standard error is collected as it comes. `host` is the address it
    listens on; the page is opened at 127.0.0.1 either way."""

    def __init__(self, home: Path, extra_env: dict[str, str], host: str = "127.0.0.1"):
        self.home = home
        env = {k: v for k, v in os.environ.items() if not k.startswith("SIBYL_") or k in ("SIBYL_ENGINES", "SIBYL_CACHE")}
        env.update({"SIBYL_HOME": str(home), "SIBYL_LOG_LEVEL": "info"}, **extra_env)
        env.pop("OPENAI_API_KEY", None)
        self.env = env
        process = subprocess.Popen([sibyl_binary(), "serve", "--host", host, "--port", "0"], env=env,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        super().__init__("sibyl serve", process, process.stderr)
        port = self.wait_for(rf"is listening on http://{re.escape(host)}:(\d+)", 300)
        self.url = f"http://127.0.0.1:{port}"

    def setup_link(self) -> str:
        return self.wait_for(r"(http://\S+/setup#\S+)", 30)

    def cli(self, *arguments: str, stdin: str = "") -> str:
        done = subprocess.run([sibyl_binary(), *arguments], env=self.env, input=stdin, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()


@contextmanager
def fresh_server(extra_env: dict[str, str], host: str = "127.0.0.1"):
    """A `sibyl serve` on a data directory of its own, stopped and removed afterwards."""
    home = Path(tempfile.mkdtemp(prefix="sibyl-browser-"))
    server = Server(home, extra_env, host)
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(scope="module")
def accounts_server():
    """A server with accounts on and none made yet: it prints the one-time setup link."""
    with fresh_server({"SIBYL_SERVE_AUTH": "accounts"}) as server:
        yield server


@pytest.fixture(scope="module")
def model_stub():
    from model_stub import ModelStub
    stub = ModelStub()
    yield stub
    stub.stop()


@pytest.fixture(autouse=True)
def _no_failure_left_for_the_next_test(request):
    """A test that scripts a failure the page never triggered must not fail the next test."""
    yield
    if "model_stub" in request.fixturenames:
        stub = request.getfixturevalue("model_stub")
        stub.fail_next, stub.tool_call = 0, None


@pytest.fixture(scope="module")
def stub_server(model_stub):
    """An open (loopback, no accounts) server whose chat provider is the scriptable stub."""
    with fresh_server({"OPENAI_BASE_URL": model_stub.url, "SIBYL_SERVE_AUTH": "none", "SIBYL_EMBEDDINGS_PROVIDER": "local",
                       "SIBYL_STT_PROVIDER": "local", "SIBYL_TTS_PROVIDER": "local", "SIBYL_MAX_RETRIES": "0", "SIBYL_TITLES": "model"}) as server:
        yield server


def spoken_question(folder: Path) -> Path:
    """The fake microphone's sound: 1.5 s of silence, a spoken question (espeak-ng), 3.5 s of silence."""
    import wave
    speech = folder / "speech.wav"
    subprocess.run(["espeak-ng", "-s", "140", "-w", str(speech), QUESTION], check=True)
    with wave.open(str(speech)) as source:
        rate, width, channels = source.getframerate(), source.getsampwidth(), source.getnchannels()
        frames = source.readframes(source.getnframes())
    silence = lambda seconds: b"\0" * int(rate * seconds) * width * channels
    out = folder / "utterance.wav"
    with wave.open(str(out), "wb") as target:
        target.setnchannels(channels)
        target.setsampwidth(width)
        target.setframerate(rate)
        target.writeframes(silence(1.5) + frames + silence(3.5))
    return out


@pytest.fixture(scope="session")
def browser(tmp_path_factory):
    utterance = spoken_question(tmp_path_factory.mktemp("audio"))
    with sync_playwright() as playwright:
        args = CHROMIUM_ARGS + [f"--use-file-for-fake-audio-capture={utterance}%noloop"]
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
        yield browser
        browser.close()


def new_context(browser, service_workers: str = "block"):
    """A fresh browser profile (no cookies, no storage). The app's service worker is blocked
    unless asked for: requests it made would go past the routes tests set (Playwright's
    page.route does not see them); test_installable.py tests the worker itself."""
    return browser.new_context(viewport={"width": 1100, "height": 760}, service_workers=service_workers)


@pytest.fixture()
def context(browser):
    """A fresh browser profile, failing the test on any script error."""
    context = new_context(browser)
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    yield context
    context.close()
    assert not errors, f"script errors in the page: {errors}"


@pytest.fixture()
def context_with_worker(browser):
    """A fresh browser profile where the app's service worker runs."""
    context = new_context(browser, service_workers="allow")
    errors: list[str] = []
    context.on("weberror", lambda error: errors.append(str(error.error)))
    yield context
    context.close()
    assert not errors, f"script errors in the page: {errors}"


def axe_problems(page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is now."""
    from axe_playwright_python.sync_playwright import Axe
    results = Axe().run(page)
    return [f"{v['id']} ({v['impact']}): {v['help']}" for v in results.response["violations"] if v["impact"] in ("serious", "critical")]


THEMES = ["light", "dark", "midnight", "forest"]


def every_theme(page, name: str, themes=THEMES):
    """Switches the page through the themes: axe finds no serious or critical problem in any, and
    each is photographed; the page is left in the light theme. The page's HTML as the browser
    holds it is kept for the HTML checker (test_z_html.py)."""
    (SCREENSHOTS / "html").mkdir(parents=True, exist_ok=True)
    (SCREENSHOTS / "html" / f"{name}.html").write_text(page.content())
    for theme in themes:
        page.get_by_label("Theme").select_option(theme)
        assert page.evaluate("document.documentElement.dataset.theme") == theme
        problems = axe_problems(page)
        assert problems == [], f"{name} in {theme}: {problems}"
        screenshot(page, f"{name}-{theme}")
    page.get_by_label("Theme").select_option("light")


def screenshot(page, name: str):
    SCREENSHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SCREENSHOTS / f"{name}.png"), full_page=True, animations="disabled")
