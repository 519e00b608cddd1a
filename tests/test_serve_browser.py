"""``arena serve`` end to end in a real browser (issue 23): headless Chromium driven by Selenium
loads the page for every game, then plays a whole game against an agent by clicking legal moves
and reads the result on the page.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package (the test extra);
without them the tests skip, unless ``TABLETOP_ARENA_REQUIRE_BROWSER=1`` (set by .ci/run), which
turns the skip into a failure. ``TABLETOP_ARENA_SCREENSHOTS=DIR`` saves serve.png (mid-game) and
serve_end.png (the result) there: that is how docs/images/serve*.png are made.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tabletop_arena import envs

REQUIRE = os.environ.get("TABLETOP_ARENA_REQUIRE_BROWSER") == "1"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
SHOTS = os.environ.get("TABLETOP_ARENA_SCREENSHOTS")


def _missing() -> list[str]:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    return missing


@pytest.fixture(scope="module")
def browser():
    missing = _missing()
    if missing:
        reason = ("no headless browser: missing " + ", ".join(missing)
                  + " (apt-get install chromium chromium-driver)")
        if REQUIRE:
            pytest.fail(reason + "; TABLETOP_ARENA_REQUIRE_BROWSER=1 makes this a failure")
        pytest.skip(reason)
    import tempfile

    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    profile = tempfile.mkdtemp(prefix="arena-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})   # CSP refusals show in the console
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage", f"--user-data-dir={profile}", "--window-size=1280,900"):
        opts.add_argument(flag)
    driver = webdriver.Chrome(options=opts, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture(scope="module")
def server_url():
    """``arena serve --port 0`` in its own process; the URL from its first line."""
    proc = subprocess.Popen([sys.executable, "-m", "tabletop_arena.train.cli", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://\S+/", line)
        assert match, f"arena serve did not print its URL: {line!r}"
        yield match.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.stdout.close()   # the pipe is ours to close (an open one is a ResourceWarning)


def _wait(driver, condition: str, timeout: float = 60.0, what: str = "") -> None:
    """Wait until the JavaScript expression ``condition`` is true."""
    from selenium.webdriver.support.ui import WebDriverWait
    WebDriverWait(driver, timeout, poll_frequency=0.05).until(
        lambda d: d.execute_script(f"return !!({condition});"), message=what or condition)


def _error(driver) -> str:
    return driver.execute_script("const e = document.getElementById('error'); return e.hidden ? '' : e.textContent;")


def _start(driver, game: str, opponent: str, seed: int, seat: int = 0) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(driver.find_element(By.ID, "game")).select_by_value(game)
    Select(driver.find_element(By.ID, "seat")).select_by_value(str(seat))
    Select(driver.find_element(By.ID, "agent")).select_by_value(opponent)
    seed_box = driver.find_element(By.ID, "seed")
    seed_box.clear()
    seed_box.send_keys(str(seed))
    before = driver.execute_script("return document.body.dataset.game || ''")
    driver.execute_script("document.body.dataset.moves = '-1'")
    driver.find_element(By.ID, "new").click()
    _wait(driver, "document.body.dataset.moves !== '-1' && document.body.dataset.busy === '0'",
          what=f"a new {game} game")
    assert not _error(driver), _error(driver)
    del before


def _board_loaded(driver) -> bool:
    return driver.execute_script(
        "const i = document.getElementById('board'); return i.complete && i.naturalWidth > 0 && !i.hidden;")


def test_page_loads_every_game(browser, server_url):
    from selenium.webdriver.common.by import By

    browser.get(server_url)
    _wait(browser, "document.body.dataset.ready === '1'", what="the page and its catalog")
    # the Content-Security-Policy lets the page's own style and script run (by their nonce), nothing else
    assert browser.execute_script("return getComputedStyle(document.querySelector('header')).backgroundColor") \
        == "rgb(35, 33, 29)", "the page's style did not apply"
    refused = [e["message"] for e in browser.get_log("browser") if "Content Security Policy" in e["message"]]
    assert not refused, refused
    for name in envs.names():
        _start(browser, name, "random", seed=1)
        _wait(browser, "document.getElementById('board').complete", what=f"{name}'s board picture")
        assert _board_loaded(browser), f"{name}: the board picture did not load"
        assert browser.find_elements(By.CSS_SELECTOR, "button.move"), f"{name}: no legal moves listed"
        assert "player_0 (you)" in browser.find_element(By.ID, "players").text


def test_play_a_game_to_the_end(browser, server_url):
    """Peacekeepers (2-player competitive) against the rule-based agent, clicking listed moves
    (the filter box is used once) until the page shows the result."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(server_url)
    _wait(browser, "document.body.dataset.ready === '1'")
    _start(browser, "peacekeepers_v0", "heuristic", seed=7)
    clicks, filtered = 0, False
    deadline = time.monotonic() + 240
    while browser.execute_script("return document.body.dataset.over") != "1":
        assert time.monotonic() < deadline, "the game did not end in time"
        moves_before = browser.execute_script("return document.body.dataset.moves")
        buttons = browser.find_elements(By.CSS_SELECTOR, "button.move")
        assert buttons, "no legal move to click while the game is on"
        if not filtered and len(buttons) > 3:
            # type the words of one move into the filter: Enter plays it when it is the only match
            text = buttons[len(buttons) // 2].get_attribute("title")
            box = browser.find_element(By.ID, "filter")
            box.send_keys(text)
            if len(browser.find_elements(By.CSS_SELECTOR, "button.move")) == 1:
                box.send_keys(Keys.ENTER)
                filtered = True
            else:
                box.clear()
                browser.execute_script("document.getElementById('filter').dispatchEvent(new Event('input'))")
                buttons[clicks % len(buttons)].click()
        else:
            buttons[(7 * clicks) % len(buttons)].click()
        clicks += 1
        _wait(browser, f"document.body.dataset.busy === '0' && document.body.dataset.moves !== '{moves_before}'",
              what=f"the answer to click {clicks}")
        assert not _error(browser), _error(browser)
        if SHOTS and clicks == 14:
            _wait(browser, "document.getElementById('board').complete")
            browser.save_screenshot(str(Path(SHOTS) / "serve.png"))
    result = browser.find_element(By.ID, "result")
    assert result.is_displayed()
    headline = browser.find_element(By.ID, "result-headline").text
    assert re.search(r"(You won!|You lost\.|Shared win\.)? ?(Winner: player_\d|No single winner|Shared first place)",
                     headline), headline
    assert "player_1 (heuristic): return" in browser.find_element(By.ID, "result-lines").text
    assert filtered, "the filter box never narrowed the list to one move"
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(log) == int(browser.execute_script("return document.body.dataset.moves"))
    assert any("player_1 (heuristic)" in li.text for li in log)  # the agent's moves are shown
    assert "The game is over." in browser.find_element(By.ID, "moves").text
    assert not [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    if SHOTS:
        _wait(browser, "document.getElementById('board').complete")
        browser.save_screenshot(str(Path(SHOTS) / "serve_end.png"))
