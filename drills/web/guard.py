"""Who may talk to the server: only the learner's own browser tab.

- Token: the printed URL carries a random token; the first tokened load sets it as a cookie, and every
  request must carry it (missing: 401, wrong: 403), so another user of the machine cannot use the app.
- Host: must be the loopback name and our port, so a web page that rebinds its DNS name to 127.0.0.1
  cannot reach us under its own name (DNS rebinding).
- Origin: a state-changing request (POST) whose Origin is not ours is refused, and it must also repeat
  the token in a header, which a cross-site form cannot send.
"""

from __future__ import annotations

import hmac

from urllib.parse import urlencode

from flask import Flask, abort, redirect, request

COOKIE = "drills_token"
HEADER = "X-Drills-Token"
LOOPBACK_NAMES = ("127.0.0.1", "localhost")


def cookie_name(port: int) -> str:
    # Cookies do not separate ports; naming ours after the port keeps two servers from clobbering each other.
    return f"{COOKIE}_{port}"


def _same(a: str | None, b: str) -> bool:
    return a is not None and hmac.compare_digest(a.encode(), b.encode())


def install(app: Flask) -> None:
    @app.before_request
    def check():
        token, port = app.config["DRILLS_TOKEN"], app.config["DRILLS_PORT"]
        if request.host not in {f"{name}:{port}" for name in LOOPBACK_NAMES}:
            abort(403, "wrong Host header")
        if request.method not in ("GET", "HEAD"):
            origin = request.headers.get("Origin")
            if origin is not None and origin not in {f"http://{request.host}"}:
                abort(403, "foreign Origin")
            if not _same(request.headers.get(HEADER), token):
                abort(403, "missing or wrong token header")
            return
        given = request.args.get("token") or request.cookies.get(cookie_name(port)) or request.headers.get(HEADER)
        if given is None:
            abort(401, "this page needs the token from the URL that `judge.py serve` printed")
        if not _same(given, token):
            abort(403, "wrong token")
        if request.args.get("token"):
            # Keep the token out of the address bar and history; the cookie set below carries it on.
            rest = {k: v for k, v in request.args.items() if k != "token"}
            return redirect(request.path + ("?" + urlencode(rest) if rest else ""), code=303)

    @app.after_request
    def remember(response):
        # The tokened URL is opened once; from then on the cookie carries the token.
        if request.args.get("token") and response.status_code < 400:
            response.set_cookie(cookie_name(app.config["DRILLS_PORT"]), app.config["DRILLS_TOKEN"],
                                httponly=True, samesite="Strict", path="/")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        # Everything comes from this server: a page that tries to load anything else is broken, and
        # the policy makes that visible in tests instead of quietly fetching from a CDN.
        response.headers.setdefault(
            "Content-Security-Policy",
            "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; "
            "font-src 'self' data:; script-src 'self'; frame-ancestors 'none'")
        return response
