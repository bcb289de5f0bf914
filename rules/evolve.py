"""``replace`` for frozen dataclasses, without ``dataclasses.replace``'s per-call reflection.

The rules and the room commands copy frozen states with a few fields changed on every action
(about eight copies per Number Swap move, of records with up to 24 fields).
``dataclasses.replace`` walks every field's metadata on each call and then runs the class's
``__init__`` through keyword arguments; that was most of a command's time
(``docs/benchmarks.md``, issue 15). This ``replace`` has the same meaning, checked for every
dataclass of the rules and the server by ``tests/rules/test_evolve.py``:

- fields not named keep the object's value; ``init=False`` fields get their default again
  (never the old object's value: the server keeps caches in such fields);
- naming a field that does not exist, or an ``init=False`` one, is a ``TypeError`` or
  ``ValueError`` as with ``dataclasses.replace``;
- ``__post_init__``, if the class has one, runs.

For each class a function is generated once that copies the fields straight onto a new
instance.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_MAKERS: dict[type, Callable[..., Any]] = {}
_MISSING = object()


def replace(obj: T, /, **changes: Any) -> T:
    """``dataclasses.replace(obj, **changes)``, faster."""
    maker = _MAKERS.get(type(obj))
    if maker is None:
        maker = _MAKERS[type(obj)] = _maker(type(obj))
    return maker(obj, **changes)  # type: ignore[no-any-return]


def _maker(cls: type) -> Callable[..., Any]:
    if not dataclasses.is_dataclass(cls):
        raise TypeError("replace() should be called on dataclass instances")
    params: list[str] = []
    body: list[str] = ["    __made = __new(__cls)"]
    scope: dict[str, Any] = {"__new": object.__new__, "__set": object.__setattr__, "__cls": cls}
    for i, f in enumerate(dataclasses.fields(cls)):
        if f.init:
            params.append(f"{f.name}=__M")
            value = f"__obj.{f.name} if {f.name} is __M else {f.name}"
            body.append(f"    __set(__made, {f.name!r}, {value})")
        elif f.default is not dataclasses.MISSING:
            scope[f"__d{i}"] = f.default
            body.append(f"    __set(__made, {f.name!r}, __d{i})")
        elif f.default_factory is not dataclasses.MISSING:
            scope[f"__f{i}"] = f.default_factory
            body.append(f"    __set(__made, {f.name!r}, __f{i}())")
        # An init=False field without a default is left unset, as the class's __init__ does.
    if hasattr(cls, "__post_init__"):
        body.append("    __made.__post_init__()")
    body.append("    return __made")
    scope["__M"] = _MISSING
    signature = ", ".join(["__obj", "/", "*", *params]) if params else "__obj, /"
    source = f"def replace({signature}):\n" + "\n".join(body) + "\n"
    exec(source, scope)
    made: Callable[..., Any] = scope["replace"]
    return made
