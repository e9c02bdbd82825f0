"""The README's Python examples run as written (so the README never lies)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.S)


@pytest.mark.parametrize("code", BLOCKS, ids=[f"block{i}" for i in range(len(BLOCKS))])
def test_readme_python_block_runs(code):
    if "pyspiel" in code:
        pytest.importorskip("pyspiel")
        pytest.importorskip("pettingzoo")
    exec(compile(code, "README.md", "exec"), {})


def test_readme_names_the_two_commands():
    assert 'pip install -e ".[test]" && ratai demo' in README
    assert 'pip install -e ".[test]" && pytest' in README


def test_relative_links_in_the_docs_resolve():
    """Every relative Markdown link in README, docs/, bench/README and the model reports
    names a file or directory of the repository (anchors and URLs are not checked)."""
    pages = [ROOT / "README.md", ROOT / "bench" / "README.md",
             *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "ratai" / "models").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
                continue
            if not (page.parent / target.split("#")[0]).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert not broken, broken


# --------------------------------------------------------------------- documented commands
DOC_PAGES = [ROOT / "README.md", ROOT / "bench" / "README.md",
             *sorted((ROOT / "docs").rglob("*.md")),
             *sorted((ROOT / "ratai" / "models").glob("*.md"))]
#: A synopsis or a placeholder (``GAME``, ``N``, ``[--opt]``, ``...``, ``a / b``), not a
#: command to copy.
PLACEHOLDER = re.compile(r"\[|\.\.\.| / |\b[A-Z][A-Z_]*\b")


def _documented_commands() -> list[tuple[str, str, str | None]]:
    """(page, command, documented error or None) of every ``ratai`` command line a reader
    may copy: the lines of fenced blocks (continuations joined; ``$ `` prompts and a
    following ``ratai: ...`` error line understood) and the inline code spans that name a
    game, with no placeholder."""
    from ratai.engines import registered_games
    games = set(registered_games())
    found = []
    for page in DOC_PAGES:
        text = page.read_text()
        name = str(page.relative_to(ROOT))
        for block in re.findall(r"```[a-z]*\n(.*?)```", text, re.S):
            lines = block.replace("\\\n", " ").split("\n")
            for i, line in enumerate(lines):
                m = re.match(r"\s*(?:\$ )?(?:.*&& )?(ratai [^&|;#]*)", line)
                if not m or PLACEHOLDER.search(m.group(1)):
                    continue
                nxt = lines[i + 1] if i + 1 < len(lines) else ""
                error = nxt[len("ratai: "):] if nxt.startswith("ratai: ") else None
                found.append((name, m.group(1).strip(), error))
        for span in re.findall(r"`(ratai [^`]*)`", text.replace("\n", " ")):
            words = span.split()
            if len(words) > 2 and words[2] in games and not PLACEHOLDER.search(span):
                found.append((name, span, None))
    return found


COMMANDS = _documented_commands()


@pytest.mark.parametrize("page,command,error", COMMANDS,
                         ids=[f"{p}:{c[:60]}" for p, c, _ in COMMANDS])
def test_documented_command_parses(page, command, error):
    """Each documented ``ratai`` command parses as written: its subcommand, options and
    values exist (parsed with click, never run). A documented error transcript
    (``$ ratai ...`` then ``ratai: <message>``) is the message the parse gives, or, for an
    error found later than the parse, a command that parses."""
    import shlex

    import click

    from ratai.cli import _one_line, cli
    args = shlex.split(command)[1:]
    parent = click.Context(cli, info_name="ratai", obj={})
    sub = cli.get_command(parent, args[0])
    assert sub is not None, f"{page}: no subcommand {args[0]!r} in `{command}`"
    try:
        sub.make_context(args[0], args[1:], parent=parent)
    except click.exceptions.Exit:
        pass
    except click.ClickException as exc:
        assert error is not None, f"{page}: `{command}` does not parse: {exc}"
        assert _one_line(exc) == error, f"{page}: `{command}` says {_one_line(exc)!r}"


# ------------------------------------------------------------------- docstring examples
def _client_spec_examples() -> list[str]:
    """The bot spec strings ``ratai.client``'s docstrings give as examples (``"KIND:..."``)."""
    import ratai.client

    docs = [ratai.client.__doc__ or ""] + [f.__doc__ or "" for f in vars(ratai.client).values()
                                           if callable(f)]
    return sorted({s for doc in docs for s in re.findall(r'``"([a-z_]+:[^"`]+)"``', doc)})


CLIENT_SPECS = _client_spec_examples()


def test_the_client_docstring_gives_spec_examples():
    assert len(CLIENT_SPECS) >= 3, CLIENT_SPECS


@pytest.mark.parametrize("spec", CLIENT_SPECS)
def test_client_docstring_spec_is_accepted_by_the_service(spec):
    """Each spec example of ``ratai.client`` goes through the client's conversion and the
    service's own checks (``bot_from_pb``, ``check_bot``) as a real call would, so the
    docstring never shows a spec the server refuses (it showed ``mcts:0.1s:c=2``; the
    option is ``exploration``)."""
    from ratai.client import bot_spec
    from ratai.engines import load_game
    from ratai.service.catalog import check_bot
    from ratai.service.config import Limits
    from ratai.service.convert import bot_from_pb

    game = load_game("rats_to_riches", num_players=2)  # perfect information: every kind
    check_bot(game, 0, bot_from_pb(bot_spec(spec), "ismcts"), Limits())
