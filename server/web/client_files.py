"""The web client's files, served from memory: compressed once, versioned for long caching.

The client directory is read into memory when the app is built, and each file that gzip makes
worth it is compressed then, once, not per request. A *build id* is hashed over every file's
path and content. ``index.html`` is served with its local asset URLs rewritten under
``/v/<build>/``, and everything under that prefix is cached for a year as immutable: a changed
client is a new build, so new URLs. Relative imports inside the modules (static and dynamic)
resolve under the same prefix, so the whole module graph is versioned by the one id.

The page itself (``/``, ``/index.html``, ``/r/CODE``) and the unversioned paths are
``no-cache``: the browser revalidates, and an unchanged file is a 304 by its ETag. Before
answering one of those the directory is looked at again (a stat per file), so editing a file and
reloading still works without a restart.
"""

from __future__ import annotations

import gzip
import hashlib
import mimetypes
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse, Response
from starlette.types import Receive, Scope, Send

#: The prefix of versioned URLs: ``/v/<build>/<path>``.
VERSIONED = "/v/"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
#: Below this, gzip's header and the Content-Encoding line cost about what they save.
MIN_COMPRESS = 512

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".json": "application/json",
    ".md": "text/markdown; charset=utf-8",
}
_COMPRESSIBLE = ("text/", "application/json", "image/svg+xml")
#: A root-relative href or src in the page (not ``//host/...``).
_LOCAL_URL = re.compile(r'(\s(?:href|src)=")/(?!/)([^"?#]*)"')
_MODULE_SCRIPT = re.compile(r'<script type="module" src="/(?!/)([^"?#]*)"')
#: A static import or re-export (``import x from "..."``, ``import "..."``), not ``import()``.
_STATIC_IMPORT = re.compile(
    r'^\s*(?:(?:import|export)\b[^;"\'()]*?\bfrom|import)\s*"([^"]+)"', re.M
)


@dataclass(frozen=True)
class Asset:
    """One file as it is sent: its bytes, gzipped bytes if worth it, type and validator."""

    body: bytes
    gzipped: bytes | None
    media_type: str
    etag: str

    @classmethod
    def of(cls, body: bytes, media_type: str) -> Asset:
        digest = hashlib.sha256(body).hexdigest()[:20]
        gzipped = None
        if len(body) >= MIN_COMPRESS and media_type.startswith(_COMPRESSIBLE):
            packed = gzip.compress(body, compresslevel=9, mtime=0)
            if len(packed) < len(body) * 0.9:
                gzipped = packed
        return cls(body, gzipped, media_type, f'"{digest}"')


@dataclass(frozen=True)
class Build:
    """The client directory as read at one moment: its id, files by path, and the page."""

    id: str
    assets: Mapping[str, Asset]
    page: Asset | None
    #: (path, mtime_ns, size) of every file: how a later look tells that something changed.
    stamp: tuple[tuple[str, int, int], ...]


def _stamp(root: Path) -> tuple[tuple[str, int, int], ...]:
    if not root.is_dir():
        return ()
    found = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            stat = path.stat()
            found.append((path.relative_to(root).as_posix(), stat.st_mtime_ns, stat.st_size))
    return tuple(found)


def media_type(name: str) -> str:
    suffix = Path(name).suffix.lower()
    if suffix in _TYPES:
        return _TYPES[suffix]
    guessed, _ = mimetypes.guess_type(name)
    return guessed or ("text/plain; charset=utf-8" if not suffix else "application/octet-stream")


def static_imports(entry: str, contents: Mapping[str, bytes]) -> list[str]:
    """Every module that ``entry`` imports statically, directly or not, in the order found
    (``import()`` is left out: it is fetched when it is needed)."""
    found: list[str] = []
    waiting = [entry]
    while waiting:
        name = waiting.pop(0)
        source = contents.get(name, b"").decode(errors="replace")
        for match in _STATIC_IMPORT.finditer(source):
            spec = match.group(1)
            if spec.startswith("/"):
                target = spec.lstrip("/")
            elif spec.startswith("."):
                target = posixpath.normpath(posixpath.join(posixpath.dirname(name), spec))
            else:
                continue
            if target in contents and target != entry and target not in found:
                found.append(target)
                waiting.append(target)
    return found


def _page(html: str, build_id: str, contents: Mapping[str, bytes]) -> bytes:
    """The page with its local URLs under the build's prefix, and a modulepreload link for
    every module its scripts import statically: the browser then fetches them all at once
    instead of one level of the import graph per round trip."""
    preloads = []
    for entry in _MODULE_SCRIPT.findall(html):
        for name in static_imports(entry, contents):
            preloads.append(f'  <link rel="modulepreload" href="{VERSIONED}{build_id}/{name}">\n')

    def versioned(match: re.Match[str]) -> str:
        path = match.group(2)
        if path not in contents:
            return match.group(0)
        return f'{match.group(1)}{VERSIONED}{build_id}/{path}"'

    html = _LOCAL_URL.sub(versioned, html)
    return html.replace("</head>", "".join(preloads) + "</head>", 1).encode()


def read_build(root: Path) -> Build:
    """Read, hash and compress the client directory ``root``."""
    stamp = _stamp(root)
    contents = {name: (root / name).read_bytes() for name, _, _ in stamp}
    hasher = hashlib.sha256()
    for name, body in contents.items():
        hasher.update(f"{name}\0{len(body)}\0".encode())
        hasher.update(body)
    build_id = hasher.hexdigest()[:16]
    assets = {name: Asset.of(body, media_type(name)) for name, body in contents.items()}
    page = None
    if "index.html" in contents:
        page = Asset.of(_page(contents["index.html"].decode(), build_id, contents), _TYPES[".html"])
    return Build(build_id, assets, page, stamp)


def accepts_gzip(accept_encoding: str) -> bool:
    """Whether an Accept-Encoding header allows gzip (``gzip;q=0`` refuses it)."""
    for part in accept_encoding.split(","):
        coding, _, params = part.strip().partition(";")
        if coding.strip().lower() not in ("gzip", "*"):
            continue
        quality = params.strip().lower()
        if quality.startswith("q="):
            try:
                return float(quality[2:]) > 0
            except ValueError:
                return False
        return True
    return False


def respond(asset: Asset, headers: Headers, cache_control: str) -> Response:
    """``asset`` for a request with ``headers``: gzipped if it may be, 304 if it is fresh.
    The two encodings are two representations, so they carry two ETags."""
    zipped = asset.gzipped is not None and accepts_gzip(headers.get("accept-encoding", ""))
    etag = f'{asset.etag[:-1]}-gz"' if zipped else asset.etag
    out = {"cache-control": cache_control, "etag": etag, "vary": "Accept-Encoding"}
    wanted = headers.get("if-none-match", "")
    if wanted and (
        wanted.strip() == "*" or etag in [t.strip().removeprefix("W/") for t in wanted.split(",")]
    ):
        return Response(status_code=304, headers=out)
    if zipped:
        out["content-encoding"] = "gzip"
    body = asset.gzipped if zipped and asset.gzipped is not None else asset.body
    return Response(body, headers=out, media_type=asset.media_type)


class ClientFiles:
    """An ASGI app serving the client directory from memory (see the module docstring)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.build = read_build(root)

    def current(self) -> Build:
        """The build, read again first if any file was added, removed or changed."""
        if _stamp(self.root) != self.build.stamp:
            self.build = read_build(self.root)
        return self.build

    def page(self, headers: Headers) -> Response:
        page = self.current().page
        if page is None:
            return PlainTextResponse("The web client is not installed", 404)
        return respond(page, headers, REVALIDATE)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        assert scope["type"] == "http"
        response = self.answer(scope["method"], scope["path"], Headers(scope=scope))
        await response(scope, receive, send)

    def answer(self, method: str, path: str, headers: Headers) -> Response:
        if method not in ("GET", "HEAD"):
            return PlainTextResponse("Method Not Allowed", 405, headers={"allow": "GET, HEAD"})
        if path in ("/", "/index.html"):
            return self.page(headers)
        if path.startswith(VERSIONED):
            build_id, _, name = path[len(VERSIONED) :].partition("/")
            build = self.build if build_id == self.build.id else self.current()
            asset = build.assets.get(name)
            if asset is None:
                return PlainTextResponse("Not Found", 404)
            # A page of an older build still asking: today's file, but not cached for long.
            return respond(asset, headers, IMMUTABLE if build_id == build.id else REVALIDATE)
        asset = self.current().assets.get(path.lstrip("/"))
        if asset is None:
            return PlainTextResponse("Not Found", 404)
        return respond(asset, headers, REVALIDATE)
