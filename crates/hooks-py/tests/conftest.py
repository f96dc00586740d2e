"""Fixtures: a fresh project (with `.git`) and home per test, and file hooks written
into them."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

REPO = Path(__file__).resolve().parents[3]


class World:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.project = root / "project"
        self.home = root / "home"
        (self.project / ".git").mkdir(parents=True)
        self.home.mkdir()
        self.env = {"PATH": "/usr/bin:/bin", "HOME": str(root)}

    def write_user(self, config: Dict[str, Any]) -> None:
        (self.home / "hooks.json").write_text(json.dumps(config))

    def write_project(self, config: Dict[str, Any]) -> None:
        d = self.project / ".deepagents"
        d.mkdir(exist_ok=True)
        (d / "hooks.json").write_text(json.dumps(config))

    def session(self, **kw: Any):
        from hooks_py import Session

        kw.setdefault("home", self.home)
        kw.setdefault("env", self.env)
        return Session(self.project, **kw)


def group(event: str, handlers: List[Dict[str, Any]], matcher: Optional[str] = None) -> Dict[str, Any]:
    g: Dict[str, Any] = {"hooks": handlers}
    if matcher is not None:
        g["matcher"] = matcher
    return {"hooks": {event: [g]}}


def sh(script: str, **extra: Any) -> Dict[str, Any]:
    """A command handler running `script` with /bin/sh."""
    return {"type": "command", "command": script, **extra}


def prints(output: Dict[str, Any], delay: float = 0.0) -> Dict[str, Any]:
    """A handler that reads its stdin, waits `delay` seconds and prints `output`."""
    text = json.dumps(output).replace("'", "'\\''")
    return sh(f"cat >/dev/null; sleep {delay}; printf '%s' '{text}'")


def bash(command: str, tool_use_id: str = "toolu_1") -> Dict[str, Any]:
    return {"tool_name": "Bash", "tool_input": {"command": command}, "tool_use_id": tool_use_id}


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)
