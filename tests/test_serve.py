"""``flask --app scorekeeper serve`` for real: a process serving a new instance over plain HTTP, and
with ``--https`` over HTTPS that a phone trusting the family's authority accepts, with the
plain-HTTP port for the set-up page.

(Chromium trusting the authority: ``browser/test_https_phone.py``.)
"""

from __future__ import annotations

import http.client
import socket
import ssl

import pytest

from scorekeeper.hosting import addresses
from tests.pages import input_value, text_of
from tests.serve_process import ServeProcess, free_port
from tests.test_accounts import new_family_data
from tests.test_concurrency import Phone

pytestmark = pytest.mark.slow


class TrustingPhone(Phone):
    """A phone that trusts the family's authority and opens the server at ``name``."""

    def __init__(self, port: int, cafile: str, name: str = "localhost"):
        super().__init__(port)
        self.context = ssl.create_default_context(cafile=cafile)
        self.name = name

    def connection(self) -> http.client.HTTPConnection:
        return http.client.HTTPSConnection(self.name, self.port, context=self.context, timeout=30)


@pytest.fixture
def plain(tmp_path):
    server = ServeProcess(tmp_path, "--host", "127.0.0.1", "--port", str(free_port())).start()
    yield server
    server.stop()


@pytest.fixture
def https(tmp_path):
    port, http_port = free_port(), free_port()
    server = ServeProcess(tmp_path, "--https", "--host", "127.0.0.1", "--port", str(port),
                          "--http-port", str(http_port)).start()
    server.port, server.http_port = port, http_port
    yield server
    server.stop()


def test_serve_answers_and_the_first_visit_creates_the_family_with_the_printed_code(plain):
    port = int(plain.args[-1])
    assert f"On this computer: http://localhost:{port}" in plain.output
    phone = Phone(port)
    assert phone.get("/healthz").body == "ok"
    welcome = phone.get("/welcome")
    phone.csrf = input_value(welcome.body, "csrf_token")
    wrong = phone.post("/welcome", {**new_family_data(), "setup_code": "0000-0000"})
    assert wrong.status == 200 and "That is not the set-up code" in wrong.text
    made = phone.post("/welcome", {**new_family_data(), "setup_code": plain.setup_code})
    assert made.status == 302 and "The Parkers" in phone.follow(made).text


def test_serve_https_is_trusted_by_a_phone_that_trusts_the_family_authority(https):
    cafile = str(https.instance / "tls" / "ca.crt")
    assert f"https://localhost:{https.port}" in https.output
    phone = TrustingPhone(https.port, cafile)
    assert phone.get("/healthz").body == "ok"
    assert phone.get("/").location == "/welcome"
    stranger = http.client.HTTPSConnection("localhost", https.port, context=ssl.create_default_context(), timeout=10)
    with pytest.raises(ssl.SSLCertVerificationError):
        stranger.request("GET", "/healthz")


def test_a_phone_going_quiet_mid_handshake_holds_up_no_other_phone(https):
    """Each TLS handshake happens in the thread that serves its connection: three connections that never
    say a word (a phone walking out of the Wi-Fi) leave another phone served at once, not after the
    server's 10-second socket timeout."""
    quiet = [socket.create_connection(("127.0.0.1", https.port)) for _ in range(3)]
    try:
        phone = TrustingPhone(https.port, str(https.instance / "tls" / "ca.crt"))
        connection = http.client.HTTPSConnection("localhost", https.port, context=phone.context, timeout=5)
        connection.request("GET", "/healthz")
        assert connection.getresponse().read() == b"ok"
    finally:
        for sock in quiet:
            sock.close()


def test_the_plain_http_port_serves_the_set_up_page_and_redirects_the_rest(https):
    phone = Phone(https.http_port)
    page = phone.get("/phone")
    assert page.status == 200 and "Download the certificate" in page.text
    assert f'href="https://127.0.0.1:{https.port}/phone"' in page.body
    connection = http.client.HTTPConnection("127.0.0.1", https.http_port, timeout=10)
    connection.request("GET", "/games/new?variant=family-7")
    answer = connection.getresponse()
    assert answer.status == 302
    assert answer.headers["Location"] == f"https://127.0.0.1:{https.port}/games/new?variant=family-7"


def test_plain_http_sent_to_the_https_port_is_redirected_to_https(https):
    connection = http.client.HTTPConnection("127.0.0.1", https.port, timeout=10)
    connection.request("GET", "/")
    answer = connection.getresponse()
    assert answer.status == 302 and answer.headers["Location"] == f"https://127.0.0.1:{https.port}/"


def test_the_computer_s_local_name_is_on_its_certificate(https):
    name = addresses.local_name()
    if name is None:
        pytest.skip("this computer's host name cannot be a .local name")
    text = text_of(TrustingPhone(https.port, str(https.instance / "tls" / "ca.crt")).get("/phone").body)
    assert "Nothing to set up" not in text
    # The certificate names NAME.local: a phone opening it by that name is satisfied.
    context = ssl.create_default_context(cafile=str(https.instance / "tls" / "ca.crt"))
    with socket.create_connection(("127.0.0.1", https.port)) as sock, \
            context.wrap_socket(sock, server_hostname=name) as tls:
        assert tls.version() in ("TLSv1.2", "TLSv1.3")
