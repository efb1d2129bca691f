"""Signing in from a browser: the one-time setup link, sign-in and sign-out, a second user,
languages and themes that persist, and no serious accessibility problems on these pages."""


from playwright.sync_api import expect

from conftest import PASSWORD, axe_problems, every_theme, screenshot

def sign_in(page, name: str, password: str):
    page.get_by_label("Name").fill(name)
    page.get_by_label("Password", exact=True).fill(password)
    page.get_by_role("button", name="Sign in").click()


def test_the_setup_link_makes_the_first_administrator_once(accounts_server, context):
    link = accounts_server.setup_link()
    page = context.new_page()
    # Signed out, the sign-in page opens without a failed request in the console.
    console = []
    page.on("console", lambda message: console.append(message.text) if message.type == "error" else None)
    page.goto(accounts_server.url + "/")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    page.wait_for_load_state("networkidle")
    assert console == [], console
    page.goto(link)
    expect(page.get_by_role("heading", name="Make the first administrator")).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    every_theme(page, "setup")
    page.get_by_label("Name").fill("ada")
    page.get_by_label("Password", exact=True).fill("short")
    page.get_by_label("Repeat the password").fill("short")
    page.get_by_role("button", name="Make the account").click()
    # The browser's own check (minlength) or the server's: either way no account yet.
    page.get_by_label("Password", exact=True).fill(PASSWORD)
    page.get_by_label("Repeat the password").fill(PASSWORD + "x")
    page.get_by_role("button", name="Make the account").click()
    expect(page.get_by_role("alert")).to_have_text("The two passwords differ.")
    page.get_by_label("Repeat the password").fill(PASSWORD)
    page.get_by_role("button", name="Make the account").click()
    expect(page.get_by_text("Hello, ada. What would you like to know?")).to_be_visible()
    assert page.url.endswith("/"), "the one-time token leaves the address bar"
    expect(page.locator("#account-name")).to_have_text("ada")
    screenshot(page, "home-light")
    # The session survives a reload: the cookie is HttpOnly, so the page asks the server.
    page.reload()
    expect(page.get_by_text("Hello, ada. What would you like to know?")).to_be_visible()
    assert page.evaluate("document.cookie") == "", "the session cookie is not readable by scripts"

    # The link works once only.
    second = context.browser.new_context().new_page()
    second.goto(link)
    second.get_by_label("Name").fill("mallory")
    second.get_by_label("Password", exact=True).fill(PASSWORD)
    second.get_by_label("Repeat the password").fill(PASSWORD)
    second.get_by_role("button", name="Make the account").click()
    expect(second.get_by_role("alert")).to_contain_text("was used already")
    second.context.close()


def test_sign_in_sign_out_and_a_second_user(accounts_server, context):
    accounts_server.cli("users", "add", "bo", "--password-stdin", stdin=PASSWORD + "\n")
    page = context.new_page()
    page.goto(accounts_server.url + "/")
    expect(page.get_by_role("heading", name="Sign in to Sibyl")).to_be_visible()
    screenshot(page, "sign-in-light")
    sign_in(page, "bo", "not the password")
    expect(page.get_by_role("alert")).to_have_text("The name or password is wrong.")
    sign_in(page, "nobody-at-all", "not the password")
    expect(page.get_by_role("alert")).to_have_text("The name or password is wrong.")
    sign_in(page, "bo", PASSWORD)
    expect(page.get_by_text("Hello, bo. What would you like to know?")).to_be_visible()
    expect(page.locator("#account-name")).to_have_text("bo")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_text("You are signed out.")).to_be_visible()
    expect(page.get_by_role("button", name="Sign out")).to_be_hidden()
    page.reload()
    expect(page.get_by_role("heading", name="Sign in to Sibyl")).to_be_visible()


def test_languages_and_themes_persist_and_every_page_is_accessible(accounts_server, context):
    page = context.new_page()
    page.goto(accounts_server.url + "/")
    expect(page.get_by_role("heading", name="Sign in to Sibyl")).to_be_visible()
    every_theme(page, "sign-in")
    page.get_by_label("Theme").select_option("forest")
    page.get_by_label("Language").select_option("ko")
    expect(page.get_by_role("heading", name="Sibyl에 로그인")).to_be_visible()
    assert page.evaluate("document.documentElement.lang") == "ko"
    page.reload()
    expect(page.get_by_role("heading", name="Sibyl에 로그인")).to_be_visible()
    assert page.evaluate("document.documentElement.dataset.theme") == "forest", "the theme persists"
    page.get_by_label("이름").fill("bo")
    page.get_by_label("비밀번호").fill(PASSWORD)
    page.get_by_role("button", name="로그인").click()
    expect(page.get_by_text("bo님, 안녕하세요. 무엇이 궁금하세요?")).to_be_visible()
    screenshot(page, "home-ko-forest")
    page.get_by_label("언어", exact=True).select_option("id")
    expect(page.get_by_text("Halo, bo. Apa yang ingin Anda ketahui?")).to_be_visible()
    page.get_by_label("Tema").select_option("dark")
    assert axe_problems(page) == []
    screenshot(page, "home-id-dark")


def test_a_phone_sized_screen(accounts_server, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(accounts_server.url + "/")
    expect(page.get_by_role("heading", name="Sign in to Sibyl")).to_be_visible()
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone ({width} px)"
    screenshot(page, "sign-in-phone")
    context.close()
