"""Page load: the home page on a slow phone, cold cache and warm (not a test).

Starts one ``parlor serve`` (embedded store, rooms in memory) and opens its home page in
Debian's Chromium through Playwright, with the network and CPU of a slow phone set over CDP:
150 ms round trip, 1.6 Mbit/s down, 750 kbit/s up, the CPU slowed 4 times. Each run is a fresh
browser context (an empty cache): a cold load, then the same address again in that context (a
warm load: the page is revalidated, the versioned files come from the cache).

For each load it counts the requests that went to the network, the bytes transferred (headers
and bodies, as encoded on the wire) and the time to usable: from the start of the navigation
to the "Create room" button being enabled (the games list has arrived and the page is drawn),
read on the page's own clock (``performance.now()``).

    python -m bench.page_load              # 5 runs
    python -m bench.page_load --runs 10
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.browser.served import parlor_serve

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"]
PHONE = {"width": 375, "height": 812}
#: Chrome DevTools' bytes per second; latency in milliseconds.
SLOW_NETWORK = {
    "offline": False,
    "latency": 150,
    "downloadThroughput": 1_600_000 / 8,
    "uploadThroughput": 750_000 / 8,
}
CPU_SLOWDOWN = 4
#: The page is usable once this returns a number: the time since the navigation started.
USABLE = """() => {
  const button = [...document.querySelectorAll("button")]
    .find((b) => b.textContent.trim() === "Create room");
  return button && !button.disabled ? performance.now() : null;
}"""


@dataclass
class Load:
    requests: int
    from_cache: int
    transferred: int
    usable_ms: float


def measure(context: Any, url: str) -> Load:
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.emulateNetworkConditions", SLOW_NETWORK)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_SLOWDOWN})
    network: set[str] = set()
    cached: set[str] = set()
    sizes: dict[str, int] = {}

    def received(event: dict[str, Any]) -> None:
        response = event["response"]
        if response.get("fromDiskCache") or response.get("fromPrefetchCache"):
            cached.add(event["requestId"])
        else:
            network.add(event["requestId"])

    cdp.on("Network.responseReceived", received)
    cdp.on("Network.requestServedFromCache", lambda e: cached.add(e["requestId"]))
    cdp.on(
        "Network.loadingFinished",
        lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]),
    )
    page.goto(url, wait_until="commit")
    usable = page.wait_for_function(USABLE, polling=20, timeout=60_000).json_value()
    page.wait_for_load_state("networkidle")
    network -= cached
    transferred = sum(sizes.get(request, 0) for request in network)
    cdp.detach()
    page.close()
    return Load(len(network), len(cached), transferred, float(usable))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    loads: dict[str, list[Load]] = {"cold": [], "warm": []}
    with tempfile.TemporaryDirectory() as tmp:
        served = parlor_serve(Path(tmp))
        with served.process, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            # One load first, so that no run pays for the server's first requests.
            first = browser.new_context(viewport=PHONE)
            measure(first, served.url)
            first.close()
            for _ in range(args.runs):
                # A fresh context has an empty cache; its second page shares the first's.
                context = browser.new_context(viewport=PHONE)
                loads["cold"].append(measure(context, served.url))
                loads["warm"].append(measure(context, served.url))
                context.close()
            browser.close()
    print(f"{args.runs} runs; slow phone: 150 ms RTT, 1.6 Mbit/s down, CPU x{CPU_SLOWDOWN}")
    print("| load | requests (network) | from cache | transferred | usable: median (min to max) |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, runs in loads.items():
        times = [run.usable_ms / 1000 for run in runs]
        print(
            f"| {name} | {statistics.median(r.requests for r in runs):.0f} "
            f"| {statistics.median(r.from_cache for r in runs):.0f} "
            f"| {statistics.median(r.transferred for r in runs) / 1000:.1f} kB "
            f"| {statistics.median(times):.2f} s ({min(times):.2f} to {max(times):.2f}) |"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
