"""Temp folders of user-code children: named for their owner; only those of ended owners are ever removed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from auditor.core.processes import pid_namespace, start_ticks
from auditor.numeric.scratch import PREFIX, private_dir, remove_orphans


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _folder(base: Path, name: str) -> Path:
    path = base / name
    path.mkdir()
    (path / "request.pickle").write_bytes(b"the config")
    return path


def test_a_private_folder_is_named_for_this_process_and_only_its_user_may_enter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    made = private_dir()
    assert made.parent == tmp_path and made.stat().st_mode & 0o777 == 0o700
    assert made.name.startswith(f"{PREFIX}{pid_namespace()}-{os.getpid()}-{start_ticks(os.getpid())}-")
    assert remove_orphans(tmp_path) == [] and made.is_dir()  # its owner, this test, lives


def test_only_folders_of_ended_owners_are_removed(tmp_path: Path) -> None:
    ns, me = pid_namespace(), os.getpid()
    dead = _folder(tmp_path, f"{PREFIX}{ns}-{_dead_pid()}-123-abc")
    reused = _folder(tmp_path, f"{PREFIX}{ns}-{me}-1-abc")  # our id, but a process started at tick 1: ended
    unknown_ticks_dead = _folder(tmp_path, f"{PREFIX}{ns}-{_dead_pid()}-x-abc")
    live = _folder(tmp_path, f"{PREFIX}{ns}-{me}-{start_ticks(me)}-abc")
    unknown_ticks_live = _folder(tmp_path, f"{PREFIX}{ns}-{me}-x-abc")
    other_namespace = _folder(tmp_path, f"{PREFIX}1-{_dead_pid()}-123-abc")  # a container's: its own ids
    unnamed = _folder(tmp_path, f"{PREFIX}k2j3h4")  # made before folders carried their owner
    unrelated = _folder(tmp_path, f"other-{ns}-{_dead_pid()}-123-abc")
    link = tmp_path / f"{PREFIX}{ns}-{_dead_pid()}-123-link"
    link.symlink_to(live)
    removed = remove_orphans(tmp_path)
    assert sorted(removed) == sorted([dead, reused, unknown_ticks_dead])
    for kept in (live, unknown_ticks_live, other_namespace, unnamed, unrelated):
        assert (kept / "request.pickle").read_bytes() == b"the config"
    assert link.is_symlink() and (live / "request.pickle").exists()  # a link is never followed or removed
