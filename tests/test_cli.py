"""opslib/cli.py: what the terminal shows."""

from __future__ import annotations

import argparse

from opslib.cli import build_parser


def _parsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    found = [parser]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                found += _parsers(sub)
    return found


def test_no_help_text_shows_restructuredtext_quotes() -> None:
    # Before: `opslib --help` said "The ``opslib`` command: ...", the module docstring's
    # markup, in the first line a newcomer reads.
    parsers = _parsers(build_parser())
    assert len(parsers) > 20  # every sub-command and theirs
    quoted = [p.prog for p in parsers if "``" in p.format_help() or ":func:" in p.format_help()]
    assert quoted == []
    assert build_parser().description == (
        "The opslib command: platform server, data generator, simulator, reports."
    )
