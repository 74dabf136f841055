"""Nobody but the learner's own tab may use the server: token, Host and Origin checks, body cap.
Plain HTTP, no browser: these are about what the server answers, whoever asks."""

from __future__ import annotations

import http.client
import json

import pytest


def request(server, method: str, path: str, headers: dict | None = None, body: bytes | None = None):
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    # skip_host: some tests send a Host of their own.
    conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    headers = {"Host": f"127.0.0.1:{server.port}", **(headers or {})}
    if body is not None:
        headers.setdefault("Content-Length", str(len(body)))
    for k, v in headers.items():
        conn.putheader(k, v)
    conn.endheaders()
    if body is not None:
        conn.send(body)
    res = conn.getresponse()
    data = res.read()
    conn.close()
    return res, data


def cookie(server) -> dict:
    return {"Cookie": f"drills_token_{server.port}={server.token}"}


def post_headers(server, **extra) -> dict:
    return {**cookie(server), "X-Drills-Token": server.token, "Content-Type": "application/json",
            "Origin": server.origin, **extra}


def test_no_token_is_401_and_wrong_token_is_403(server):
    assert request(server, "GET", "/")[0].status == 401
    assert request(server, "GET", "/p/78")[0].status == 401
    assert request(server, "GET", "/static/app.js")[0].status == 401
    assert request(server, "GET", "/?token=not-the-token")[0].status == 403
    assert request(server, "GET", "/", {"Cookie": f"drills_token_{server.port}=wrong"})[0].status == 403
    assert request(server, "GET", "/api/file/78", {"X-Drills-Token": "wrong"})[0].status == 403


def test_tokened_url_sets_the_cookie_and_drops_the_token_from_the_address(server):
    res, _ = request(server, "GET", f"/?token={server.token}")
    assert res.status == 303 and res.getheader("Location") == "/"
    set_cookie = res.getheader("Set-Cookie")
    assert f"drills_token_{server.port}={server.token}" in set_cookie
    assert "HttpOnly" in set_cookie and "SameSite=Strict" in set_cookie
    res, body = request(server, "GET", "/", cookie(server))
    assert res.status == 200 and b'data-number="78"' in body


@pytest.mark.parametrize("host", ["evil.example:{port}", "127.0.0.1:1", "127.0.0.1", "localhost.evil.example:{port}"])
def test_foreign_host_is_refused(server, host):
    # DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 sends its own Host.
    res, _ = request(server, "GET", "/", {**cookie(server), "Host": host.format(port=server.port)})
    assert res.status == 403


def test_localhost_name_is_accepted(server):
    res, _ = request(server, "GET", "/", {**cookie(server), "Host": f"localhost:{server.port}"})
    assert res.status == 200


def test_post_from_a_foreign_origin_is_refused_and_changes_nothing(server):
    before = server.mine().read_text()
    body = json.dumps({"problem": 78, "text": "// pwned\n"}).encode()
    for origin in ("http://evil.example", f"http://localhost:{server.port + 1}", "null"):
        res, _ = request(server, "POST", "/api/save", post_headers(server, Origin=origin), body)
        assert res.status == 403, origin
        res, _ = request(server, "POST", "/api/run", post_headers(server, Origin=origin), body)
        assert res.status == 403, origin
    assert server.mine().read_text() == before


def test_post_needs_the_token_header_even_with_the_cookie(server):
    # A cross-site form would carry a cookie if the browser sent one, but can never set this header.
    before = server.mine().read_text()
    headers = post_headers(server)
    del headers["X-Drills-Token"]
    res, _ = request(server, "POST", "/api/save", headers, json.dumps({"problem": 78, "text": "x"}).encode())
    assert res.status == 403
    assert server.mine().read_text() == before


def test_save_from_our_own_origin_works(server):
    res, data = request(server, "POST", "/api/save", post_headers(server),
                        json.dumps({"problem": 78, "text": "// mine\n"}).encode())
    assert res.status == 200, data
    answer = json.loads(data)
    assert answer["path"] == "mine/c3_transpose.cu" and answer["saved"] is True
    assert server.mine().read_text() == "// mine\n"


def test_request_bodies_are_capped(server):
    before = server.mine().read_text()
    big = json.dumps({"problem": 78, "text": "x" * (1 << 20)}).encode()
    res, _ = request(server, "POST", "/api/save", post_headers(server), big)
    assert res.status == 413
    assert server.mine().read_text() == before


def test_bad_requests_are_answered_not_crashed(server):
    for body in (b"not json", b"[]", json.dumps({"problem": 999, "text": ""}).encode(),
                 json.dumps({"problem": 78, "text": 5}).encode()):
        res, data = request(server, "POST", "/api/save", post_headers(server), body)
        assert res.status in (400, 404), (body, res.status)
        assert "error" in json.loads(data)


def test_vendor_files_stay_inside_their_folder(server):
    res, _ = request(server, "GET", "/vendor/codemirror/../../../../etc/passwd", cookie(server))
    assert res.status == 404
    res, _ = request(server, "GET", "/vendor/nothing/x.js", cookie(server))
    assert res.status == 404


def test_listens_on_127_0_0_1_only(server):
    # A server bound to every address (0.0.0.0) would also answer on 127.0.0.2, which needs no network.
    import socket
    socket.create_connection(("127.0.0.1", server.port), timeout=2).close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.2", server.port), timeout=2).close()
