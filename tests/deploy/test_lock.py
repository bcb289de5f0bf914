"""The hashed locks in requirements/ agree with pyproject.toml: every requirement is pinned
inside its range, with hashes, and the runtime lock is the test lock's runtime part exactly.
A failure here means pyproject.toml changed without `make lock`."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[2]
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def pins(lock: str) -> dict[str, tuple[str, frozenset[str]]]:
    """Each package of a lock: its version and its hashes."""
    found: dict[str, tuple[str, frozenset[str]]] = {}
    name = ""
    for line in (ROOT / "requirements" / lock).read_text().splitlines():
        if match := PIN.match(line):
            name = canonicalize_name(match.group(1))
            assert name not in found, f"{lock}: {name} pinned twice"
            found[name] = (match.group(2), frozenset())
        elif hashed := re.search(r"--hash=(sha256:[0-9a-f]{64})", line):
            version, hashes = found[name]
            found[name] = (version, hashes | {hashed.group(1)})
        else:
            assert not line.strip() or line.lstrip().startswith("#"), f"{lock}: {line!r}"
    return found


def requirements(*, test: bool) -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    wanted = [*project["build-system"]["requires"], *project["project"]["dependencies"]]
    if test:
        wanted += project["project"]["optional-dependencies"]["test"]
    return [Requirement(text) for text in wanted]


def check(lock: str, *, test: bool) -> None:
    locked = pins(lock)
    assert all(hashes for _, hashes in locked.values()), f"{lock}: a pin without hashes"
    for requirement in requirements(test=test):
        name = canonicalize_name(requirement.name)
        assert name in locked, f"{lock} lacks {requirement}: run `make lock`"
        version = locked[name][0]
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{lock} pins {name}=={version}, outside {requirement}: run `make lock`"
        )


def test_the_test_lock_pins_every_requirement_inside_its_range() -> None:
    check("test.txt", test=True)


def test_the_runtime_lock_pins_every_requirement_inside_its_range() -> None:
    check("run.txt", test=False)


def test_the_runtime_lock_is_what_the_tests_run_with() -> None:
    test_pins = pins("test.txt")
    for name, pinned in pins("run.txt").items():
        assert test_pins.get(name) == pinned, f"{name} differs between run.txt and test.txt"
