"""The user documentation is the code's: docs/games.md is what its generator writes, its rules
examples are real rules keys, and the README's Python blocks run.

Regenerate docs/games.md after changing an option, a rules table, a variant or an env docstring:
``python -m tabletop_arena.envs.docs``.
"""
from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest
import yaml

from tabletop_arena import envs
from tabletop_arena.envs import docs
from tests.scripts import load_script

ROOT = Path(__file__).resolve().parents[1]
GAMES_MD = ROOT / "docs" / "games.md"
README = ROOT / "README.md"


def test_games_md_is_generated_from_the_code():
    delta = docs.diff(GAMES_MD)
    assert not delta, (f"docs/games.md differs from the code; regenerate it with `{docs.COMMAND}` "
                       f"(in the repository root) and commit it. Diff:\n{delta[:3000]}")


@pytest.mark.parametrize("name", envs.names())
def test_games_md_rules_rows_are_rules_keys(name):
    """Every row of a game's rules table is a key the ``rules`` option accepts, with its default."""
    rows, larger, _ = docs._rule_rows(name)
    assert rows, f"{name}: no rules table rows"
    for row in rows:
        key, value = row[0].strip("`"), yaml.safe_load(row[1].strip("`"))
        nested: dict = {}
        *heads, last = key.split(".")
        inner = nested
        for head in heads:
            inner = inner.setdefault(head, {})
        inner[last] = value
        envs.make_game(name, rules=nested)   # raises ConfigError for an unknown key
    with pytest.raises(envs.ConfigError):
        envs.make_game(name, rules={"no_such_rules_key": 1})


@pytest.mark.parametrize("name", envs.names())
def test_games_md_lists_every_rules_file_field_with_its_type_and_range(name):
    """Each field of the game's rules-file schema (envs/<game>/config.py SCHEMA) has a row of the
    page with its type and, for a number, its range: what a user reads is what load checks."""
    schema = docs._schema(name)
    assert schema is not None, f"{name}: no SCHEMA in its config.py"
    section = docs.games_markdown().split(f"(`{name}`)\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    in_rules_section = schema.field("rules") is not None
    missing = []
    for path, row, _ in docs.schema_rows(schema):
        key = path[len("rules."):] if in_rules_section and path.startswith("rules.") else path
        if path == "rules" and in_rules_section:
            continue
        found = [line for line in lines if line.startswith((f"| `{key}` |", f"| `{path}` |"))]
        words = f"{row.low}..{row.high}" if row.low is not None else docs._row_type(row)
        if not any(words in line for line in found):
            missing.append(f"{path} ({words})")
    assert not missing, f"{name}: docs/games.md lacks {missing[:10]}"


def test_yaml_comments_reads_trailing_continued_and_leading_comments():
    text = ("rules:\n"
            "  a: 1      # first\n"
            "            # continued\n"
            "  b: 2\n"
            "\n"
            "# above c\n"
            "c: true\n"
            "d:\n"
            "  e: 3  # nested\n")
    assert docs.yaml_comments(text) == {"rules.a": "first continued", "c": "above c", "d.e": "nested"}


def _readme_python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def test_readme_python_blocks_run():
    """Each ```python block of the README runs as written (they are small by design)."""
    blocks = _readme_python_blocks()
    assert blocks, "the README has no python block"
    for i, code in enumerate(blocks):
        with warnings.catch_warnings():
            warnings.simplefilter("error", envs.IllegalMoveWarning)
            exec(compile(code, f"README.md python block {i + 1}", "exec"), {"__name__": "readme"})


def test_adding_a_game_example_runs():
    """The tested blocks of docs/adding-a-game.md (a whole small game on the engine contract,
    its AEC adapter under PettingZoo's api_test, a rule-based agent) run as written."""
    text = (ROOT / "docs" / "adding-a-game.md").read_text(encoding="utf-8")
    blocks = re.findall(r"<!-- tested -->\n```python\n(.*?)```", text, re.S)
    assert blocks, "docs/adding-a-game.md has no tested block"
    for i, code in enumerate(blocks):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", module=r"pettingzoo\.")   # api_test's own notes
            exec(compile(code, f"docs/adding-a-game.md tested block {i + 1}", "exec"),
                 {"__name__": "adding_a_game"})


#: links to pages another branch is adding; remove an entry once it exists
PENDING_LINKS: set[str] = set()


def test_relative_links_point_to_files():
    """Every relative link of the README and docs/*.md names a file or folder of the repository."""
    missing, pending_found = [], set()
    for page in [README, *sorted((ROOT / "docs").glob("*.md"))]:
        text = page.read_text(encoding="utf-8")
        targets = re.findall(r"\]\(([^)\s]+)\)", text) + re.findall(r'src="([^"]+)"', text)
        for target in targets:
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            path = (page.parent / target.split("#", 1)[0]).resolve()
            where = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
            if where in PENDING_LINKS:
                pending_found.add(where)
            elif not path.exists():
                missing.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not missing, f"broken links: {missing}"
    landed = {p for p in pending_found if (ROOT / p).exists()}
    assert not landed, f"{landed} exist now: remove them from PENDING_LINKS"


@pytest.mark.parametrize("name", envs.names())
def test_env_docstring_names_every_option(name):
    """The hand-written options table of each aec_env.py docstring names every option the env takes
    (the game's OPTIONS and the env's own); docs/games.md has the generated details."""
    from tabletop_arena.envs.core.options import ENV_OPTIONS
    doc = docs.env_docstring(name)
    options = [o.name for o in type(envs.make_game(name)).OPTIONS] + list(ENV_OPTIONS)
    missing = [o for o in options if not re.search(rf"^\|\s*{o}\s*\|", doc, re.M)]
    assert not missing, f"{name}: aec_env.py docstring's options table lacks {missing}"


@pytest.mark.parametrize("game", ["gorgasali", "peacekeepers", "warbah", "zaberias", "zaka"])
def test_rules_md_code_references_exist(game):
    """Every ``module.name`` a game's RULES.md cites for a rule, where ``module`` is a file of
    that game's package, names something still in that file (or a key of the game's rules
    file, as ``rules.reroll_hordes``): renamed or removed code leaves no dangling citation."""
    pkg = ROOT / "envs" / game
    rules_yaml = (ROOT / "configs" / f"{game}.yaml").read_text()
    missing = []
    for mod, name in sorted(set(re.findall(r"`([a-z_]+)\.([A-Za-z_]\w*)`",
                                           (pkg / "RULES.md").read_text()))):
        src = pkg / f"{mod}.py"
        if name == "py" or not src.exists():
            continue
        if not (re.search(rf"\b{name}\b", src.read_text())
                or re.search(rf"^\s*{name}\s*:", rules_yaml, re.M)):
            missing.append(f"{mod}.{name}")
    assert not missing, f"envs/{game}/RULES.md cites code that is gone: {missing}"


#: the folders whose every module docs/development.md's module map lists
MODULE_FOLDERS = ("envs", "agents", "train", "app", "tabletop_arena", "scripts")


def _module_map() -> str:
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    assert "### Module map" in text, "docs/development.md has no '### Module map' section"
    return text.split("### Module map", 1)[1].split("\n## ", 1)[0]


def test_development_md_lists_every_module():
    """docs/development.md's module map has a row for every Python module of envs/, agents/,
    train/, app/, tabletop_arena/ and scripts/, and no row for a module that is gone (issue 44: the page
    had missed 16 modules)."""
    listed = set(re.findall(r"^\| `([\w/.]+\.(?:py|c|html))` \|", _module_map(), re.M))
    present = {p.relative_to(ROOT).as_posix() for folder in MODULE_FOLDERS
               for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts}
    missing, gone = sorted(present - listed), sorted(p for p in listed if not (ROOT / p).is_file())
    assert not missing, f"docs/development.md's module map lacks {missing}: add a row for each"
    assert not gone, f"docs/development.md's module map lists files that do not exist: {gone}"


def test_readme_results_table_has_every_shipped_agent():
    """The README's one results table has a row for every agent of checkpoints/shipped.yaml (as
    ``kind:NAME``) and for its ``strongest`` spec, and the row's reproduce command is an
    ``arena eval`` of that spec against the heuristic on the entry's game."""
    from tabletop_arena.agents.shipped import agent_kind, shipped_agents
    section = README.read_text(encoding="utf-8").split("\n## Results\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[4]
    for name, entry in shipped_agents().items():
        for spec in filter(None, [f"{agent_kind(entry)}:{name}", entry.get("strongest")]):
            assert spec in rows, f"the README's results table has no row for {spec}"
            game = entry["game"].removesuffix("_v0")
            assert rows[spec].startswith(f"`arena eval {game} ") and f"--agents {spec} heuristic" in rows[spec], \
                f"{spec}: its reproduce command is not an arena eval against the heuristic: {rows[spec]}"


def test_games_md_lists_the_game_length_of_every_variant_measured():
    """configs/game_lengths.yaml (scripts/game_lengths.py --write), the data of each game's "Game
    length" in docs/games.md, has a row for every variant the script measures, with the script's
    options (which build the game) and sane numbers, and no row the script does not measure."""
    script = load_script("game_lengths")
    data = docs.game_lengths()
    assert set(data) == set(envs.names()), "configs/game_lengths.yaml: a game is missing or unknown"
    expected = {(game, label): options for game, label, options in script.VARIANTS}
    found = {(game, label): row for game, entry in data.items() for label, row in entry["variants"].items()}
    assert set(found) == set(expected), sorted(set(found) ^ set(expected))
    for (game, label), row in found.items():
        assert row["options"] == expected[game, label], (game, label)
        envs.make_game(game, **row["options"])
        assert abs(row["rules"] + row["designed"] + row["cap"] - 1) < 1e-9, (game, label)
        assert row["games"] >= 1 and row["moves"] > 0 and row["rounds"] > 0, (game, label)
        assert f"| {label} | `{json.dumps(row['options'])}` |" in GAMES_MD.read_text(encoding="utf-8")


def test_integrations_md_agent_specs_are_the_registry_table():
    """docs/integrations.md's agent-spec table is ``agents.registry.specs_markdown()`` (issue 44:
    the kinds were listed by hand in seven places that disagreed), and the README names every kind."""
    from tabletop_arena.agents.registry import AGENT_KINDS, specs_markdown

    text = (ROOT / "docs" / "integrations.md").read_text(encoding="utf-8")
    begin = "<!-- agent specs: generated from tabletop_arena.agents.registry.specs_markdown() -->\n"
    assert begin in text and "<!-- end of agent specs -->" in text
    table = text.split(begin, 1)[1].split("<!-- end of agent specs -->", 1)[0]
    assert table == specs_markdown(), (
        "docs/integrations.md's agent specs differ from agents/registry.py's AGENT_KINDS; paste the output of "
        "python -c 'from tabletop_arena.agents.registry import specs_markdown; print(specs_markdown(), end=\"\")'")
    readme = README.read_text(encoding="utf-8")
    missing = [k.name for k in AGENT_KINDS.values() if f"`{k.name}" not in readme]
    assert not missing, f"README.md does not name the agent kinds {missing}"
