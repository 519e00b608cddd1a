"""``arena serve`` end to end in a real browser (issue 23): headless Chromium driven by Selenium
loads the page for every game, then plays a whole game against an agent by clicking legal moves
and reads the result on the page.

Needs Debian's ``chromium`` and ``chromium-driver`` and the ``selenium`` package (the test extra);
without them the tests skip, unless ``TABLETOP_ARENA_REQUIRE_BROWSER=1`` (set by .ci/run), which
turns the skip into a failure. ``TABLETOP_ARENA_SCREENSHOTS=DIR`` saves serve.png (mid-game) and
serve_end.png (the result) there: that is how docs/images/serve*.png are made.
"""
from __future__ import annotations

import contextlib
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


@contextlib.contextmanager
def _serving(command: list[str]):
    """A server process started by ``command``; yields the URL from its first line."""
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = proc.stdout.readline()
        match = re.search(r"http://\S+/", line)
        assert match, f"arena serve did not print its URL: {line!r}"
        yield match.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
        proc.stdout.close()   # the pipe is ours to close (an open one is a ResourceWarning)


@pytest.fixture(scope="module")
def server_url():
    """``arena serve --port 0`` in its own process; the URL from its first line."""
    with _serving([sys.executable, "-m", "tabletop_arena.app.cli", "serve", "--port", "0"]) as url:
        yield url


#: the difficulty levels' test reads its ladder from here, not from the published data (which
#: changes as ladders are run): random 0, mcts:4 210, heuristic 430 -> levels 1, 2, 3
LEVEL_RATINGS = {"random": 0, "mcts:4": 210, "heuristic": 430}


@pytest.fixture(scope="module")
def level_server_url(tmp_path_factory):
    """``arena serve --port 0`` whose ladder folder holds one synthetic Zaka 2-player ladder."""
    import json

    from tabletop_arena.train import levels
    folder = tmp_path_factory.mktemp("ladder")
    game = envs.make_game("zaka_v0", num_players=2)
    name = levels.ladder_name("zaka_v0", 2)
    (folder / f"{name}.json").write_text(json.dumps({
        "format": levels.FORMAT, "name": name, "game": "zaka_v0", "num_players": 2,
        "options": json.loads(json.dumps(game.options(), default=str)),
        "ratings": {s: {"rating": r, "ci95": [r - 40, r + 40]} for s, r in LEVEL_RATINGS.items()}}))
    code = ("import sys; from pathlib import Path; from tabletop_arena.train import levels; from tabletop_arena.app import cli; "
            "levels.ladder_dir = lambda: Path(sys.argv[1]); sys.exit(cli.main(['serve', '--port', '0']))")
    with _serving([sys.executable, "-c", code, str(folder)]) as url:
        yield url


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
    assert "solved" not in browser.find_element(By.ID, "result-lines").text   # a puzzle's flag: not this game's
    assert filtered, "the filter box never narrowed the list to one move"
    log = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(log) == int(browser.execute_script("return document.body.dataset.moves"))
    assert any("player_1 (heuristic)" in li.text for li in log)  # the agent's moves are shown
    assert "The game is over." in browser.find_element(By.ID, "moves").text
    assert not [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    if SHOTS:
        _wait(browser, "document.getElementById('board').complete")
        browser.save_screenshot(str(Path(SHOTS) / "serve_end.png"))


def test_pick_a_level_and_play_a_game(browser, level_server_url):
    """A difficulty level (issue 46) from a ladder's data: the page lists every level with its name
    and rating for the chosen player count, the server maps the chosen number to the level's agent
    (through its allow-list), and a whole game is played against it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(level_server_url)
    _wait(browser, "document.body.dataset.ready === '1'")
    Select(browser.find_element(By.ID, "game")).select_by_value("zaka_v0")
    picker = Select(browser.find_element(By.ID, "level"))
    assert not picker.options[0].get_attribute("value")   # "none": the opponent list decides
    shown = [o.text for o in picker.options if o.get_attribute("value")]
    assert shown == ["1 Beginner (rating 0)", "2 Casual (rating 210)", "3 Intermediate (rating 430)"], shown
    picker.select_by_value("3")
    assert not browser.find_element(By.ID, "agent").is_enabled()   # the level picks the opponent
    assert "Level 3 Intermediate: heuristic" in browser.find_element(By.ID, "status").text
    seed_box = browser.find_element(By.ID, "seed")
    seed_box.clear()
    seed_box.send_keys("5")
    browser.execute_script("document.body.dataset.moves = '-1'")
    browser.find_element(By.ID, "new").click()
    _wait(browser, "document.body.dataset.moves !== '-1' && document.body.dataset.busy === '0'", what="the level's game")
    assert not _error(browser), _error(browser)
    assert "player_1 (heuristic)" in browser.find_element(By.ID, "players").text
    clicks, deadline = 0, time.monotonic() + 240
    while browser.execute_script("return document.body.dataset.over") != "1":
        assert time.monotonic() < deadline, "the game did not end in time"
        moves_before = browser.execute_script("return document.body.dataset.moves")
        buttons = browser.find_elements(By.CSS_SELECTOR, "button.move")
        assert buttons, "no legal move to click while the game is on"
        buttons[(3 * clicks) % len(buttons)].click()
        clicks += 1
        _wait(browser, f"document.body.dataset.busy === '0' && document.body.dataset.moves !== '{moves_before}'",
              what=f"the answer to click {clicks}")
        assert not _error(browser), _error(browser)
    assert browser.find_element(By.ID, "result").is_displayed()
    assert "player_1 (heuristic): return" in browser.find_element(By.ID, "result-lines").text
    # 3 players: this ladder has none, and the picker says so
    browser.find_element(By.ID, "options").clear()
    browser.find_element(By.ID, "options").send_keys('{"num_players": 3}')
    browser.execute_script("document.getElementById('options').dispatchEvent(new Event('change'))")
    assert [o.text for o in Select(browser.find_element(By.ID, "level")).options] == \
        ["none for 3 players (no ladder data yet)"]
    assert browser.find_element(By.ID, "agent").is_enabled()


def test_chips_keep_names_whole_and_the_lists_offer_what_they_should(browser, server_url):
    """Issue 47 item 7: a move chip never starts inside a name (Zaka's "Knight" / "Errant (slot
    2) ..."); before any game the moves panel says what to do; the opponent lists hold the shipped
    agents' strongest specs; choosing an agent trained for one variant (vlook:gorgasali: 2 players)
    sets the options and the seats to it, and the game starts; a trained opponent's start says that
    it is loading the agent."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    browser.get(server_url)
    _wait(browser, "document.body.dataset.ready === '1'")
    assert browser.find_element(By.ID, "moves").text.startswith("No game yet: choose a game")
    texts = ["Knight Errant (slot 0) disarms Bandit (slot 3) of army 0 (player_0)",
             "Knight Errant (slot 0) disarms Imp (slot 1) of army 2 (player_0)",
             "play monster Ancient Treant", "play monster Battle Cleric", "end the play step",
             "place Giants (yellow) [Y] at J1", "place Giants (yellow) [Y] at J10"]
    groups = browser.execute_script(
        "return [...groupMoves(arguments[0].map((t, i) => [i, t]))].map(([k, ms]) => [k, ms.map((m) => m.chip)]);",
        texts)
    assert groups == [["Knight Errant (slot 0) disarms", ["Bandit (slot 3) of army 0 (player_0)",
                                                          "Imp (slot 1) of army 2 (player_0)"]],
                      ["play monster", ["Ancient Treant", "Battle Cleric"]],
                      ["", ["end the play step"]],
                      ["place Giants (yellow) [Y]", ["at J1", "at J10"]]], groups
    agents = {}
    for game in ("zaka_v0", "peacekeepers_v0", "gorgasali_v0"):
        Select(browser.find_element(By.ID, "game")).select_by_value(game)
        agents[game] = [o.get_attribute("value") for o in browser.find_elements(By.CSS_SELECTOR, "#agent option")]
    assert "rollout:16:zaka" in agents["zaka_v0"] and "ppo:zaka" in agents["zaka_v0"]
    assert "rollout:48,k=16,gate=1,by=random,alloc=halving,moves=40000:peacekeepers" in agents["peacekeepers_v0"]
    assert "vlook:gorgasali" in agents["gorgasali_v0"]
    # Gorgasali's default is 4 players; the shipped vlook agent plays 2
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seat option")) == 4
    Select(browser.find_element(By.ID, "agent")).select_by_value("vlook:gorgasali")
    assert browser.find_element(By.ID, "options").get_attribute("value") == '{"num_players":2}'
    assert len(browser.find_elements(By.CSS_SELECTOR, "#seat option")) == 2
    browser.find_element(By.ID, "seed").send_keys("3")
    browser.execute_script("document.body.dataset.moves = '-1'")
    status = browser.execute_script("document.getElementById('new').click(); "
                                    "return document.getElementById('status').textContent;")
    assert status.startswith("Starting: loading vlook:gorgasali"), status
    _wait(browser, "document.body.dataset.moves !== '-1' && document.body.dataset.busy === '0'",
          what="a Gorgasali game against vlook:gorgasali")
    assert not _error(browser), _error(browser)
    assert "player_1 (vlook:gorgasali)" in browser.find_element(By.ID, "players").text
