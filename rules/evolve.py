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
instance (through each slot's own setter, for a class with slots).
"""

from __future__ import annotations

import dataclasses
import types
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
    # What the generated function needs is bound as defaults of keyword-only parameters after
    # the fields (fast local names): a slot's own setter, else object.__setattr__.
    hidden: dict[str, Any] = {"__new": object.__new__, "__cls": cls, "__set": object.__setattr__}
    body: list[str] = ["    __made = __new(__cls)"]

    def setter(i: int, name: str) -> str:
        slot = cls.__dict__.get(name)
        if isinstance(slot, types.MemberDescriptorType):
            hidden[f"__s{i}"] = slot.__set__
            return f"__s{i}(__made, "
        return f"__set(__made, {name!r}, "

    for i, f in enumerate(dataclasses.fields(cls)):
        if f.init:
            params.append(f"{f.name}=__M")
            value = f"__obj.{f.name} if {f.name} is __M else {f.name}"
        elif f.default is not dataclasses.MISSING:
            hidden[f"__d{i}"] = f.default
            value = f"__d{i}"
        elif f.default_factory is not dataclasses.MISSING:
            hidden[f"__f{i}"] = f.default_factory
            value = f"__f{i}()"
        else:
            continue  # an init=False field without a default is left unset, as __init__ does
        body.append(f"    {setter(i, f.name)}{value})")
    if hasattr(cls, "__post_init__"):
        body.append("    __made.__post_init__()")
    body.append("    return __made")
    scope: dict[str, Any] = {"__M": _MISSING, **{f"__h_{k}": v for k, v in hidden.items()}}
    params += [f"{k}=__h_{k}" for k in hidden]
    source = f"def replace(__obj, /, *, {', '.join(params)}):\n" + "\n".join(body) + "\n"
    exec(source, scope)
    made: Callable[..., Any] = scope["replace"]
    return made
