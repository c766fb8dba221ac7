"""The internet recipe as the repository ships it: Debian's Caddy (``deploy/Caddyfile``) in front of
gunicorn started as ``deploy/scorekeeper.service`` starts it. Caddy runs with its own internal
certificate authority (``local_certs``: ``tls internal`` for every site) instead of asking a public one,
on ports of the test's own; the test trusts that authority's root. Checked: HTTPS, plain HTTP sent
to HTTPS, ``Secure`` cookies, HSTS, links made with the public address, and the sign-in limit
counting the phone (127.0.0.2 here) rather than Caddy (127.0.0.1), even when the phone sends an
``X-Forwarded-For`` of its own.

Skipped where ``caddy`` is missing, except in CI (``CI=true``), where ``.ci/run`` installs it."""

from __future__ import annotations

import http.client
import os
import re
import secrets
import shlex
import shutil
import socket
import ssl
import subprocess
import sys
import time
from pathlib import Path

import pytest

from scorekeeper.extensions import db
from scorekeeper.models import SignInFailure
from tests.databases import TEST_PASSWORD, TEST_USERNAME, add_member, drop_app, make_app
from tests.pages import input_value
from tests.serve_process import free_port
from tests.test_concurrency import Phone, Reply

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"
DOMAIN = "scores.example.org"  # as the Caddyfile names it
UPSTREAM = "127.0.0.1:8000"  # where the unit binds gunicorn and the Caddyfile finds it
PHONE_ADDRESS = "127.0.0.2"  # the phone connects from here; Caddy reaches gunicorn from 127.0.0.1

if not shutil.which("caddy"):
    if os.environ.get("CI"):
        raise RuntimeError("CI needs Debian's caddy for the internet recipe's test (.ci/run installs it)")
    pytest.skip("caddy is missing (apt-get install caddy): the internet recipe is not tested here",
                allow_module_level=True)


def unit_settings() -> tuple[list[str], dict[str, str]]:
    """``deploy/scorekeeper.service``'s command line and environment."""
    command, env = [], {}
    for line in (DEPLOY / "scorekeeper.service").read_text().splitlines():
        key, _, value = line.partition("=")
        if key == "ExecStart":
            command = shlex.split(value)
        elif key == "Environment":
            name, _, setting = value.partition("=")
            env[name] = setting
    return command, env


def _wait(check, what: str, process: subprocess.Popen, seconds: int = 60):
    for _ in range(seconds * 10):
        try:
            result = check()
            if result:
                return result
        except OSError:
            pass
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited with {process.returncode}")
        time.sleep(0.1)
    raise RuntimeError(f"{what} did not start within {seconds} s")


class PhoneOnTheInternet(Phone):
    """A phone reaching the family's domain through Caddy, from its own address, trusting ``cafile``."""

    def __init__(self, port: int, cafile: Path):
        super().__init__(port)
        self.context = ssl.create_default_context(cafile=str(cafile))
        self.headers: dict[str, str] = {}

    def connection(self) -> http.client.HTTPConnection:
        context = self.context

        class FromThePhone(http.client.HTTPSConnection):
            def connect(self):
                sock = socket.create_connection(("127.0.0.1", self.port), self.timeout, (PHONE_ADDRESS, 0))
                self.sock = context.wrap_socket(sock, server_hostname=self.host)

        return FromThePhone(DOMAIN, self.port, context=context, timeout=30)

    def request(self, method, path, form=None, headers=None) -> Reply:
        return super().request(method, path, form, {**self.headers, **(headers or {})})


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """gunicorn as the unit starts it, behind Caddy with the repository's Caddyfile:
    (the app's database, Caddy's HTTPS port, its HTTP port, the root of its authority)."""
    tmp_path = tmp_path_factory.mktemp("caddy")
    app = make_app(tmp_path / "db", keep=True, family=None)
    add_member(app, "The Parkers", TEST_USERNAME)
    port, https_port, http_port = free_port(), free_port(), free_port()
    command, unit_env = unit_settings()
    assert command[0].endswith("/gunicorn") and UPSTREAM in command
    env = {**os.environ, **unit_env, "SCOREKEEPER_DATABASE_URL": app.config["SQLALCHEMY_DATABASE_URI"],
           "SCOREKEEPER_INSTANCE_PATH": str(tmp_path / "instance"), "XDG_CACHE_HOME": str(tmp_path / "cache"),
           "SCOREKEEPER_SECRET_KEY": "caddy-test-" + secrets.token_hex(16)}
    gunicorn = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", *[a.replace(UPSTREAM, f"127.0.0.1:{port}") for a in command[1:]]],
        cwd=ROOT, env=env, start_new_session=True)
    site = (DEPLOY / "Caddyfile").read_text()
    assert f"{DOMAIN} {{" in site and f"reverse_proxy {UPSTREAM}" in site
    (tmp_path / "site").write_text(site.replace(UPSTREAM, f"127.0.0.1:{port}"))
    (tmp_path / "Caddyfile").write_text(
        "{\n\tadmin off\n\tlocal_certs\n\tskip_install_trust\n"
        f"\thttp_port {http_port}\n\thttps_port {https_port}\n}}\n\nimport {tmp_path / 'site'}\n")
    caddy_env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    caddy = subprocess.Popen(["caddy", "run", "--config", str(tmp_path / "Caddyfile"), "--adapter", "caddyfile"],
                             env=caddy_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        _wait(lambda: Phone(port).get("/healthz").status == 200, "gunicorn", gunicorn)
        root = tmp_path / "data" / "caddy" / "pki" / "authorities" / "local" / "root.crt"
        _wait(root.exists, "caddy", caddy)
        _wait(lambda: PhoneOnTheInternet(https_port, root).get("/healthz").status == 200, "caddy", caddy)
        yield app, https_port, http_port, root
    finally:
        for process in (caddy, gunicorn):
            process.terminate()
            process.wait(timeout=30)
        drop_app(app)


@pytest.fixture
def phone(site):
    """A new phone: no cookies yet."""
    _, https_port, _, root = site
    return PhoneOnTheInternet(https_port, root)


def test_the_unit_serves_https_behind_one_proxy():
    _, env = unit_settings()
    assert env["SCOREKEEPER_HTTPS"] == "true" and env["SCOREKEEPER_PROXIES"] == "1"
    assert env["SCOREKEEPER_DATABASE_URL"].startswith("postgresql+psycopg://")


def sign_in(phone: PhoneOnTheInternet, password: str = TEST_PASSWORD) -> Reply:
    """The sign-in form, as the phone fills it in (over HTTPS, a form is accepted from its own site only)."""
    phone.csrf = input_value(phone.get("/login").body, "csrf_token")
    phone.headers["Referer"] = f"https://{DOMAIN}:{phone.port}/login"
    return phone.post("/login", {"username": TEST_USERNAME, "password": password, "remember": "y"})


def test_a_phone_gets_https_secure_cookies_and_hsts_through_caddy(site, phone):
    http_port = site[2]
    assert phone.get("/healthz").body == "ok"
    assert phone.headers_seen["Strict-Transport-Security"].startswith("max-age=")
    assert sign_in(phone).status == 302
    cookies = phone.headers_seen.get_all("Set-Cookie")
    assert {c.split("=")[0] for c in cookies} >= {"session", "remember_token"}
    assert all("; Secure" in c and "; HttpOnly" in c for c in cookies), cookies

    plain = http.client.HTTPConnection("127.0.0.1", http_port, timeout=10)
    plain.request("GET", "/games/new", headers={"Host": DOMAIN})
    moved = plain.getresponse()
    assert moved.status in (301, 308) and moved.headers["Location"] == f"https://{DOMAIN}/games/new"


def test_links_carry_the_family_s_domain(phone):
    assert sign_in(phone).status == 302
    phone.headers["Referer"] = f"https://{DOMAIN}:{phone.port}/family"
    phone.csrf = input_value(phone.get("/family").body, "csrf_token")
    phone.post("/family/invites", {})
    (invite,) = re.findall(r'value="([^"]+/join/[^"]+)"', phone.get("/family").body)
    assert invite.startswith(f"https://{DOMAIN}:{phone.port}/join/")


def test_the_sign_in_limit_counts_the_phone_not_caddy(site, phone):
    app = site[0]
    phone.headers["X-Forwarded-For"] = "203.0.113.7"  # a phone pretending to be somewhere else
    for _ in range(3):
        assert sign_in(phone, "not the password").status == 200
    with app.app_context():
        keys = db.session.execute(db.select(SignInFailure.key)).scalars().all()
    assert sorted(keys) == [f"addr:{PHONE_ADDRESS}"] * 3 + [f"user:{TEST_USERNAME}"] * 3
