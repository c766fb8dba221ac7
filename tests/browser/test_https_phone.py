"""A phone that trusts the family's certificate authority, played by Chromium: ``serve --https`` opened
at ``https://NAME.local:PORT`` is a secure context with the offline copy and the screen wake lock;
a Chromium that does not trust the authority is refused; a certificate the family's key signs for a
public name is refused even by the one that trusts it (the name constraints at work).

Chromium on Linux takes the certificates a user trusts from the NSS database in
``$HOME/.pki/nssdb``: each browser here gets a HOME of its own, made with ``certutil`` (Debian's
``libnss3-tools``). No ``ignore_https_errors`` anywhere."""

from __future__ import annotations

import http.server
import os
import shutil
import ssl
import subprocess
import threading
from datetime import timedelta
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from playwright import sync_api

from scorekeeper.hosting import addresses, certificates
from tests.browser.conftest import SCREENSHOTS, SHOTS, launch, phone, shot
from tests.serve_process import ServeProcess, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]
expect = sync_api.expect

if not shutil.which("certutil"):
    if os.environ.get("CI"):
        raise RuntimeError("CI needs certutil (Debian's libnss3-tools; .ci/run installs it)")
    pytest.skip("certutil is missing (apt-get install libnss3-tools)", allow_module_level=True)

NAME = addresses.local_name()
if NAME is None:
    pytest.skip("this computer's host name cannot be a .local name", allow_module_level=True)
PUBLIC = "bank.example.com"  # a public name the family's key must not be able to vouch for
RESOLVE = f"--host-resolver-rules=MAP {NAME} 127.0.0.1, MAP {PUBLIC} 127.0.0.1"


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """``serve --https`` on 127.0.0.1, its authority made on this first start."""
    port, http_port = free_port(), free_port()
    server = ServeProcess(tmp_path_factory.mktemp("serve"), "--https", "--host", "127.0.0.1",
                          "--port", str(port), "--http-port", str(http_port)).start()
    server.port, server.http_port = port, http_port
    server.url = f"https://{NAME}:{port}"
    yield server
    server.stop()


def _home_trusting(folder: Path, ca_file: Path) -> Path:
    """A HOME whose NSS database trusts ``ca_file`` to identify sites."""
    nssdb = folder / ".pki" / "nssdb"
    nssdb.mkdir(parents=True)
    subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-N", "--empty-password"], check=True)
    subprocess.run(["certutil", "-d", f"sql:{nssdb}", "-A", "-n", "family", "-t", "C,,", "-i", str(ca_file)],
                   check=True)
    return folder


def _chromium(playwright, home: Path):
    return launch(playwright, RESOLVE, env={**os.environ, "HOME": str(home)})


@pytest.fixture(scope="module")
def trusting(served, playwright, tmp_path_factory):
    """Chromium that trusts the family's authority."""
    browser = _chromium(playwright, _home_trusting(tmp_path_factory.mktemp("home"), served.instance / "tls" / "ca.crt"))
    yield browser
    browser.close()


def test_a_phone_trusting_the_family_authority_gets_a_secure_context_offline_copy_and_wake_lock(served, trusting):
    page = phone(trusting).new_page()
    page.goto(served.url + "/")
    assert page.url == served.url + "/welcome"
    assert page.evaluate("window.isSecureContext")
    page.get_by_label("Set-up code").fill(served.setup_code)
    page.get_by_label("Family name").fill("The Parkers")
    page.get_by_label("Username").fill("ann")
    page.get_by_label("Password", exact=True).fill("shuffle the decks")
    page.get_by_label("Password again").fill("shuffle the decks")
    shot(page, "welcome-with-set-up-code")
    page.get_by_role("button", name="Start").click()
    expect(page.get_by_role("heading", name="The Parkers")).to_be_visible()
    assert page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    page.reload()
    assert page.evaluate("navigator.serviceWorker.controller !== null")  # the page is under its control
    assert page.evaluate("'wakeLock' in navigator")
    assert not page.locator("[data-https-hint]").is_visible()
    page.context.close()


def test_the_set_up_page_leads_a_new_phone_to_https_and_says_when_it_worked(served, trusting):
    for scheme in ("light", "dark"):
        page = phone(trusting, color_scheme=scheme).new_page()
        page.goto(f"http://{NAME}:{served.http_port}/phone")  # from the terminal's QR code
        expect(page.locator("[data-phone-check]")).to_have_attribute("data-verdict", "plain")
        href = page.get_by_role("link", name="Download the certificate").get_attribute("href")
        body = page.evaluate("href => fetch(href).then(r => r.arrayBuffer()).then(b => [...new Uint8Array(b)])", href)
        assert x509.load_der_x509_certificate(bytes(body)) == \
            x509.load_pem_x509_certificate((served.instance / "tls" / "ca.crt").read_bytes())
        shot(page, f"phone-setup-plain-{scheme}")
        page.get_by_role("link", name="Check this phone").click()
        assert page.url == f"{served.url}/phone"
        expect(page.locator("[data-phone-check]")).to_have_attribute("data-verdict", "ready")
        expect(page.get_by_text("This phone is set up")).to_be_visible()
        assert page.locator('[data-feature="offline"]').get_attribute("data-state") == "ok"
        assert page.locator('[data-feature="wake"]').get_attribute("data-state") == "ok"
        shot(page, f"phone-setup-ready-{scheme}")
        page.context.close()


PHONES = {
    "iphone": "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
              "Version/17.5 Mobile/15E148 Safari/604.1",
    "android": "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
               "Chrome/126.0.0.0 Mobile Safari/537.36",
}


@pytest.mark.parametrize("kind, scheme", [("iphone", "light"), ("android", "dark")])
def test_the_set_up_page_opens_the_steps_for_the_phone_it_is_on(served, trusting, kind, scheme):
    page = phone(trusting, color_scheme=scheme, user_agent=PHONES[kind]).new_page()
    page.goto(f"http://{NAME}:{served.http_port}/phone")
    opened = page.locator("details[open]")
    expect(opened).to_have_count(1)
    assert opened.get_attribute("data-platform") == kind
    expect(opened.locator("img")).to_be_visible()
    assert opened.locator("img").evaluate("img => img.complete && img.naturalWidth > 0")
    if SCREENSHOTS:
        opened.screenshot(path=str(SHOTS / f"phone-setup-{kind}-{scheme}.png"))
    page.context.close()


def test_a_phone_that_does_not_trust_the_family_authority_is_refused(served, playwright, tmp_path):
    stranger = _chromium(playwright, tmp_path)  # an empty HOME: no NSS database, no family authority
    page = phone(stranger).new_page()
    with pytest.raises(sync_api.Error, match="ERR_CERT_AUTHORITY_INVALID"):
        page.goto(served.url + "/")
    stranger.close()


def _certificate_for(ca_folder: Path, name: str, folder: Path) -> tuple[Path, Path]:
    """A server certificate for ``name`` signed with the family's key, as a thief holding it would make."""
    ca = x509.load_pem_x509_certificate((ca_folder / "ca.crt").read_bytes())
    ca_key = serialization.load_pem_private_key((ca_folder / "ca.key").read_bytes(), None)
    key = ec.generate_private_key(ec.SECP256R1())
    now = certificates._now()
    cert = (x509.CertificateBuilder().subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, name)]))
            .issuer_name(ca.subject).public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
            .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))
    cert_file, key_file = folder / f"{name}.crt", folder / f"{name}.key"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(certificates._key_pem(key))
    return cert_file, key_file


class _Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = b"<!doctype html><title>hello</title><p>hello"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def _https_server(cert_file: Path, key_file: Path) -> http.server.ThreadingHTTPServer:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Hello)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert_file, key_file)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_the_family_key_cannot_vouch_for_a_public_site_even_where_the_authority_is_trusted(served, trusting, tmp_path):
    """Signed with the family's key and served: a certificate for NAME.local opens, one for a bank does not."""
    tls = served.instance / "tls"
    for name, opens in ((NAME, True), (PUBLIC, False)):
        server = _https_server(*_certificate_for(tls, name, tmp_path))
        page = phone(trusting).new_page()
        try:
            url = f"https://{name}:{server.server_address[1]}/"
            if opens:
                page.goto(url)
                expect(page.locator("p")).to_have_text("hello")
            else:
                with pytest.raises(sync_api.Error, match="ERR_CERT_INVALID"):  # trusted authority, forbidden name
                    page.goto(url)
        finally:
            page.context.close()
            server.shutdown()
            server.server_close()


def test_the_authority_on_disk_is_name_constrained_and_its_key_private(served):
    tls = served.instance / "tls"
    ca = x509.load_pem_x509_certificate((tls / "ca.crt").read_bytes())
    permitted = ca.extensions.get_extension_for_class(x509.NameConstraints).value.permitted_subtrees
    assert x509.DNSName("local") in permitted and x509.DNSName("localhost") in permitted
    assert all(isinstance(n, x509.DNSName | x509.IPAddress) for n in permitted)
    assert (tls / "ca.key").stat().st_mode & 0o777 == 0o600
    assert (tls / "server.key").stat().st_mode & 0o777 == 0o600


def test_over_plain_http_the_app_says_once_which_table_features_need_https(live_server, trusting):
    """The hint shows on the first page a phone opens over plain HTTP, not again, and never on the
    computer itself (localhost is a secure context)."""
    page = phone(trusting).new_page()
    page.goto(f"http://{NAME}:{live_server.live.port}/login")
    hint = page.locator("[data-https-hint]")
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("cannot reopen a game without the Wi-Fi")
    shot(page, "https-hint")
    assert hint.get_by_role("link", name="Set up this phone").get_attribute("href") == "/phone"
    hint.get_by_role("button", name="OK").click()
    expect(hint).to_be_hidden()
    page.goto(f"http://{NAME}:{live_server.live.port}/rules")
    expect(page.locator("[data-https-hint]")).to_be_hidden()
    page.context.close()
    here = phone(trusting).new_page()
    here.goto(f"http://127.0.0.1:{live_server.live.port}/login")
    here.wait_for_load_state("load")
    assert here.evaluate("window.isSecureContext")
    expect(here.locator("[data-https-hint]")).to_be_hidden()
    here.context.close()
