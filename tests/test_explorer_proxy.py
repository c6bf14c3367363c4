"""The explorer behind a reverse proxy at a prefix, in Chromium: a tiny proxy of the test's own
serves ``triples serve --root-path /triples`` at ``/triples/``, stripping the prefix as nginx's
``proxy_pass http://127.0.0.1:PORT/`` does. The page loads styled, plays a move, and asks the
service for nothing outside the prefix."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar

import pytest

from tests.test_explorer import CHROMIUM, CHROMIUM_ARGS, WAIT_MS, expect, serving, settle, skip_or_fail, table
from tests.test_service import free_port

PREFIX = "/triples"
HOP_BY_HOP = {"connection", "keep-alive", "transfer-encoding", "te", "trailer", "upgrade", "proxy-connection"}


def proxy_to(upstream_port: int) -> type[BaseHTTPRequestHandler]:
    """A handler that forwards ``/triples/...`` to the upstream's ``/...`` and answers 404 to
    anything else, recording every path it was asked for."""

    class Forward(BaseHTTPRequestHandler):
        asked: ClassVar[list[str]] = []

        def forward(self) -> None:
            type(self).asked.append(self.path)
            if not self.path.startswith(PREFIX + "/"):
                self.send_error(404)
                return
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else None
            upstream = http.client.HTTPConnection("127.0.0.1", upstream_port, timeout=30)
            headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
            headers["X-Forwarded-For"] = self.client_address[0]
            upstream.request(self.command, self.path[len(PREFIX) :], body=body, headers=headers)
            answer = upstream.getresponse()
            content = answer.read()
            self.send_response(answer.status)
            for name, value in answer.getheaders():
                if name.lower() not in HOP_BY_HOP and name.lower() != "content-length":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)
            upstream.close()

        do_GET = forward
        do_POST = forward

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Forward


@pytest.fixture(scope="module")
def behind_a_proxy() -> Iterator[tuple[str, type[BaseHTTPRequestHandler]]]:
    skip_or_fail()
    with serving("--root-path", PREFIX) as base:
        handler = proxy_to(int(base.rsplit(":", 1)[1]))
        proxy = ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
        thread = threading.Thread(target=proxy.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{proxy.server_address[1]}{PREFIX}/", handler
        finally:
            proxy.shutdown()
            proxy.server_close()


def test_the_explorer_works_at_a_prefix(behind_a_proxy: tuple[str, Any]) -> None:
    from playwright.sync_api import sync_playwright

    address, handler = behind_a_proxy
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_page()
        page.set_default_timeout(WAIT_MS)
        failed: list[str] = []
        page.on("response", lambda response: failed.append(response.url) if response.status >= 400 else None)
        page.goto(address + "?variant=classic&seed=1")
        expect(page.locator(".card")).to_have_count(10)
        settle(page)
        styled = page.locator(".card").first.evaluate("card => getComputedStyle(card).borderRadius")
        page.locator('.card[data-slot="0"]').click()
        page.locator('.card[data-slot="2"]').click()
        page.locator('.card[data-slot="5"]').click()
        settle(page)
        expect(page.locator("#cleared")).to_have_text("3")
        after = table(page)
        browser.close()
    assert failed == []
    assert styled not in ("", "0px")  # the stylesheet came through the prefix
    assert after[0] == "10S"
    assert handler.asked and all(path.startswith(PREFIX + "/") for path in handler.asked), handler.asked
    assert any(path == f"{PREFIX}/run" for path in handler.asked)
