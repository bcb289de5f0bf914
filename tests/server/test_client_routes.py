"""The web client's pages: ``/`` and shared ``/r/CODE`` links serve the same index.html, and the
client's modules are served as JavaScript."""

from __future__ import annotations

import httpx

from tests.server.harness import ROOT, TEST_SETTINGS, serve


async def test_room_links_serve_the_client_page() -> None:
    index = (ROOT / "client-web" / "index.html").read_text()
    async with serve(TEST_SETTINGS) as server, httpx.AsyncClient(base_url=server.http) as http:
        home = await http.get("/")
        assert home.status_code == 200 and home.text == index
        for path in ("/r/ABCDE", "/r/abcde"):
            page = await http.get(path)
            assert page.status_code == 200, path
            assert "text/html" in page.headers["content-type"]
            assert page.text == index
        module = await http.get("/js/main.js")
        assert module.status_code == 200
        assert "javascript" in module.headers["content-type"]
