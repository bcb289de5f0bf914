"""The web client's pages: ``/`` and shared ``/r/CODE`` links serve the same index.html, whose
asset URLs carry the client's build id; the page is revalidated (304 when unchanged), the
versioned files are cached for good, and both come gzipped to clients that accept it."""

from __future__ import annotations

import gzip
import re
import shutil
from pathlib import Path

import httpx

from server.web.client_files import IMMUTABLE, ClientFiles, accepts_gzip, static_imports
from tests.server.harness import ROOT, TEST_SETTINGS, serve

CLIENT = ROOT / "client-web"


def _plain(http: httpx.AsyncClient, path: str, **headers: str) -> httpx.Request:
    """A request that asks for no compression unless ``headers`` say otherwise."""
    return http.build_request("GET", path, headers={"accept-encoding": "identity", **headers})


def _module_url(page: str) -> str:
    found = re.search(r'src="(/v/[0-9a-f]+/js/main\.js)"', page)
    assert found is not None, page
    return found.group(1)


async def test_room_links_serve_the_client_page() -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        home = await http.get("/")
        assert home.status_code == 200 and "text/html" in home.headers["content-type"]
        for path in ("/r/ABCDE", "/r/abcde", "/index.html"):
            page = await http.get(path)
            assert page.status_code == 200, path
            assert "text/html" in page.headers["content-type"]
            assert page.text == home.text
        module = await http.get(_module_url(home.text))
        assert module.status_code == 200
        assert "javascript" in module.headers["content-type"]
        assert module.text == (CLIENT / "js" / "main.js").read_text()
        # Unversioned paths keep working (revalidated each time).
        plain = await http.get("/js/main.js")
        assert plain.status_code == 200 and plain.text == module.text
        assert plain.headers["cache-control"] == "no-cache"
        assert (await http.get("/js/nothing.js")).status_code == 404


async def test_gzip_is_served_when_accepted_and_not_otherwise() -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        home = await http.get("/")
        for path in ("/", _module_url(home.text), "/app.css", "/vendor/uqr.js"):
            zipped = await http.send(_plain(http, path, **{"accept-encoding": "gzip, br"}))
            assert zipped.headers["content-encoding"] == "gzip", path
            assert "accept-encoding" in zipped.headers["vary"].lower()
            raw = await http.send(_plain(http, path))
            assert "content-encoding" not in raw.headers, path
            assert int(raw.headers["content-length"]) == len(raw.content)
            assert zipped.content == raw.content  # httpx decoded the gzip
            refused = await http.send(_plain(http, path, **{"accept-encoding": "gzip;q=0"}))
            assert "content-encoding" not in refused.headers, path
        # A file too small to be worth it goes as it is.
        small = min((p for p in CLIENT.rglob("*.mjs")), key=lambda p: p.stat().st_size)
        name = small.relative_to(CLIENT).as_posix()
        answer = await http.send(_plain(http, f"/{name}", **{"accept-encoding": "gzip"}))
        assert answer.status_code == 200 and "content-encoding" not in answer.headers


async def test_the_api_is_gzipped_when_large() -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        games = await http.send(_plain(http, "/api/games", **{"accept-encoding": "gzip"}))
        assert games.status_code == 200 and games.json()
        if len(games.content) >= 1024:
            assert games.headers["content-encoding"] == "gzip"
        health = await http.send(_plain(http, "/healthz", **{"accept-encoding": "gzip"}))
        assert "content-encoding" not in health.headers


async def test_the_page_is_revalidated_and_unchanged_is_304() -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        for path in ("/", "/r/ABCDE", "/js/main.js"):
            for encoding in ("identity", "gzip"):
                first = await http.send(_plain(http, path, **{"accept-encoding": encoding}))
                assert first.headers["cache-control"] == "no-cache", path
                etag = first.headers["etag"]
                again = await http.send(
                    _plain(http, path, **{"accept-encoding": encoding, "if-none-match": etag})
                )
                assert again.status_code == 304, (path, encoding)
                assert again.headers["etag"] == etag and again.content == b""
                stale = await http.send(
                    _plain(http, path, **{"accept-encoding": encoding, "if-none-match": '"x"'})
                )
                assert stale.status_code == 200


async def test_versioned_assets_are_immutable_and_cached_for_a_year() -> None:
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        home = await http.get("/")
        urls = re.findall(r'(?:href|src)="(/v/[^"]+)"', home.text)
        assert len(urls) >= 2  # the stylesheet and the module
        build = urls[0].split("/")[2]
        for url in [*urls, f"/v/{build}/js/views/games/floor.js", f"/v/{build}/vendor/uqr.js"]:
            answer = await http.get(url)
            assert answer.status_code == 200, url
            assert (
                answer.headers["cache-control"]
                == IMMUTABLE
                == ("public, max-age=31536000, immutable")
            )
        # A page of another build still gets the files, but not for keeps.
        other = await http.get("/v/0123456789abcdef/js/main.js")
        assert other.status_code == 200 and other.headers["cache-control"] == "no-cache"
        assert (await http.get(f"/v/{build}/js/nothing.js")).status_code == 404


async def test_a_changed_client_has_new_versioned_urls(tmp_path: Path) -> None:
    client = tmp_path / "client"
    shutil.copytree(CLIENT, client)
    settings = TEST_SETTINGS.model_copy(update={"static_dir": client})
    async with serve(settings) as server, httpx.AsyncClient(base_url=server.http) as http:
        before = await http.get("/")
        url = _module_url(before.text)
        store = client / "js" / "store.js"
        store.write_text(store.read_text() + "\n// changed\n")
        after = await http.get("/", headers={"if-none-match": before.headers["etag"]})
        assert after.status_code == 200  # not 304: the page changed with the build
        assert _module_url(after.text) != url
        changed = await http.get(_module_url(after.text).replace("main.js", "store.js"))
        assert changed.text.endswith("// changed\n")
        assert changed.headers["cache-control"] == IMMUTABLE


def test_the_build_id_is_the_content_of_the_whole_client(tmp_path: Path) -> None:
    client = tmp_path / "client"
    shutil.copytree(CLIENT, client)
    first = ClientFiles(client).build
    assert ClientFiles(client).build.id == first.id  # the same files, the same id
    (client / "vendor" / "uqr.LICENSE").write_text("changed")
    assert ClientFiles(client).build.id != first.id
    assert first.page is not None and first.page.gzipped is not None
    assert gzip.decompress(first.page.gzipped) == first.page.body


def test_accept_encoding_is_read_with_its_qualities() -> None:
    assert accepts_gzip("gzip, deflate, br")
    assert accepts_gzip("br;q=1.0, gzip;q=0.5")
    assert accepts_gzip("*")
    assert not accepts_gzip("")
    assert not accepts_gzip("identity")
    assert not accepts_gzip("gzip;q=0")
    assert not accepts_gzip("br, gzip;q=0.0")


def test_the_page_preloads_what_main_imports_and_no_game() -> None:
    build = ClientFiles(CLIENT).build
    assert build.page is not None
    page = build.page.body.decode()
    preloaded = re.findall(rf'rel="modulepreload" href="/v/{build.id}/([^"]+)"', page)
    assert "js/dom.js" in preloaded and "js/views/home.js" in preloaded
    assert len(preloaded) == len(set(preloaded))
    # Per-game code, the QR code maker and the msgpack codec are imported when needed.
    assert not [
        name for name in preloaded if "games/" in name and name != "js/views/games/index.js"
    ]
    assert not [name for name in preloaded if name.startswith("vendor/")]


def test_static_imports_follow_the_graph_but_not_import_calls() -> None:
    contents = {
        "js/a.js": b'import { b } from "./b.js";\nimport {\n  c,\n} from "./sub/c.js";\n'
        b'const later = () => import("./d.js");\n',
        "js/b.js": b'export { x } from "../vendor/x.mjs";\n',
        "js/sub/c.js": b'import "../b.js";\n// import nothing from "./e.js"\n',
        "js/d.js": b"",
        "vendor/x.mjs": b"",
    }
    assert static_imports("js/a.js", contents) == ["js/b.js", "js/sub/c.js", "vendor/x.mjs"]
