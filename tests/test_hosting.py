"""Serving the family's phones: the family's certificate authority and what it may vouch for, the
address that goes into links and QR codes, the first visit's set-up code, the phone set-up page,
the plain-HTTP port, and what ``serve`` prints.

Real servers (``serve`` over HTTP and HTTPS) are in ``test_serve.py``; Chromium trusting the
authority in ``browser/test_https_phone.py``; Caddy in front of gunicorn in ``test_caddy.py``.
"""

from __future__ import annotations

import ipaddress
import re
import socket
import stat
from datetime import timedelta

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509 import verification
from werkzeug.test import Client

from scorekeeper.accounts import service as account_service
from scorekeeper.accounts.forms import SETUP_CODE_MISSING, SETUP_CODE_WRONG
from scorekeeper.extensions import db
from scorekeeper.hosting import addresses, certificates, serve
from scorekeeper.hosting.server import redirect_to_https
from scorekeeper.models import Member
from scorekeeper.web.qr import qr_svg
from tests.actions import GameActions
from tests.databases import TEST_USERNAME, db_snapshot, make_app, strict_client
from tests.pages import element_text, input_value, inputs, text_of
from tests.test_accounts import member_row, new_family_data
from tests.test_sharing import SHARE_LINK

LAN = "192.168.1.20"
NAME = "kitchen.local"
CODE = "5093-1176"


# -- the family's certificate authority ---------------------------------------------------


@pytest.fixture
def tls(tmp_path):
    """The authority in a fresh ``tls`` folder: (files, certificate)."""
    files = certificates.tls_files(tmp_path)
    ca, made = certificates.ensure_ca(files, NAME)
    assert made
    return files, ca


def test_the_authority_may_vouch_only_for_local_names_and_home_or_loopback_addresses(tls):
    files, ca = tls
    constraints = ca.extensions.get_extension_for_class(x509.NameConstraints)
    assert constraints.critical  # a browser that cannot read it must refuse the authority, not ignore it
    assert set(constraints.value.permitted_subtrees) == {
        x509.DNSName("local"), x509.DNSName("localhost"),
        *(x509.IPAddress(ipaddress.ip_network(n)) for n in
          ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "127.0.0.0/8", "::1/128", "fc00::/7")),
    }
    assert constraints.value.excluded_subtrees is None
    basic = ca.extensions.get_extension_for_class(x509.BasicConstraints).value
    assert basic.ca and basic.path_length == 0  # it signs server certificates, no other authority


def test_the_authority_key_is_readable_by_its_owner_only(tls):
    files, _ = tls
    assert stat.S_IMODE(files.ca_key.stat().st_mode) == 0o600
    assert stat.S_IMODE(files.folder.stat().st_mode) == 0o700
    assert stat.S_IMODE(files.ca_cert.stat().st_mode) == 0o644  # what phones download
    certificates.ensure_server_certificate(files, tls[1], NAME, [LAN])
    assert stat.S_IMODE(files.key.stat().st_mode) == 0o600


def _verify(ca, cert, name: str):
    store = verification.Store([ca])
    subject = (verification.IPAddress(ipaddress.ip_address(name)) if name[0].isdigit() or ":" in name
               else verification.DNSName(name))
    return verification.PolicyBuilder().store(store).build_server_verifier(subject).verify(cert, [])


def _signed_by_family(files, ca, name: x509.GeneralName) -> x509.Certificate:
    """A certificate for ``name`` signed with the family's key, as a thief holding it could make."""
    key = ec.generate_private_key(ec.SECP256R1())
    ca_key = serialization.load_pem_private_key(files.ca_key.read_bytes(), None)
    now = certificates._now()
    return (x509.CertificateBuilder().subject_name(x509.Name([])).issuer_name(ca.subject)
            .public_key(key.public_key()).serial_number(x509.random_serial_number())
            .not_valid_before(now - timedelta(hours=1)).not_valid_after(now + timedelta(days=30))
            .add_extension(x509.SubjectAlternativeName([name]), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(ca.public_key()), critical=False)
            .sign(ca_key, hashes.SHA256()))


@pytest.mark.parametrize("name", [x509.DNSName("bank.example.com"), x509.DNSName("google.com"),
                                  x509.DNSName("local.example.org"), x509.IPAddress(ipaddress.ip_address("8.8.8.8")),
                                  x509.IPAddress(ipaddress.ip_address("2001:4860::8888"))])
def test_a_stolen_family_key_cannot_vouch_for_a_public_site(tls, name):
    files, ca = tls
    cert = _signed_by_family(files, ca, name)
    with pytest.raises(verification.VerificationError, match="(?i)constraint"):
        _verify(ca, cert, str(name.value))


def test_the_computer_s_certificate_names_it_and_its_home_addresses_and_is_trusted(tls):
    files, ca = tls
    assert certificates.ensure_server_certificate(files, ca, NAME, [LAN, "203.0.113.9"])
    cert = x509.load_pem_x509_certificate(files.cert.read_bytes())
    names = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert set(names.get_values_for_type(x509.DNSName)) == {NAME, "localhost"}
    # A public address is left out: browsers would refuse a certificate naming one outside the constraints.
    assert {str(a) for a in names.get_values_for_type(x509.IPAddress)} == {LAN, "127.0.0.1", "::1"}
    for name in (NAME, "localhost", LAN, "127.0.0.1", "::1"):
        _verify(ca, cert, name)
    assert cert.not_valid_after_utc - cert.not_valid_before_utc <= timedelta(days=398)  # Apple's limit is 825


def test_the_computer_s_certificate_is_made_again_when_its_address_changes_or_its_end_nears(tls, monkeypatch):
    files, ca = tls
    assert certificates.ensure_server_certificate(files, ca, NAME, [LAN])
    first = files.cert.read_bytes()
    assert not certificates.ensure_server_certificate(files, ca, NAME, [LAN])
    assert files.cert.read_bytes() == first
    assert certificates.ensure_server_certificate(files, ca, NAME, ["192.168.1.31"])
    moved = x509.load_pem_x509_certificate(files.cert.read_bytes())
    _verify(ca, moved, "192.168.1.31")
    files.key.write_bytes(certificates._key_pem(ec.generate_private_key(ec.SECP256R1())))  # a crash between the two
    assert certificates.ensure_server_certificate(files, ca, NAME, ["192.168.1.31"])
    later = certificates._now() + timedelta(days=370)
    monkeypatch.setattr(certificates, "_now", lambda: later)
    assert certificates.ensure_server_certificate(files, ca, NAME, ["192.168.1.31"])


def test_the_authority_is_kept_and_a_missing_key_is_explained(tls):
    files, ca = tls
    again, made = certificates.ensure_ca(files, NAME)
    assert not made and again == ca  # phones that trust it go on trusting it
    files.ca_key.unlink()
    with pytest.raises(certificates.CertificateError, match="ca.key is missing.*delete the folder"):
        certificates.ensure_ca(files, NAME)


# -- the address in links and QR codes ----------------------------------------------------


def signed_in_at(app, client, address: str):
    """``client`` signed in as ``tester`` on the server as opened at ``address`` (cookies go by host)."""
    with app.app_context():
        member = db.session.execute(db.select(Member).where(Member.username == TEST_USERNAME)).scalar_one()
    with client.session_transaction(base_url=address) as session:
        session["_user_id"], session["_fresh"] = member.get_id(), True
    return client


def share_link(client, game_id: int, address: str) -> tuple[str, str]:
    """Make a scoreboard link on the share page opened at ``address``: (link, its QR code's SVG)."""
    signed_in_at(client.application, client, address)
    page = client.post(f"/games/{game_id}/share", data={"kind": "view"}, base_url=address, follow_redirects=True)
    # The newest link comes first: its QR code, then its address in the copy field.
    section = page.text.split('class="card share-link"')[1]
    link = re.search(r'value="(https?://[^"]+/live/[^"]+)"', section).group(1)
    qr = re.search(r"<svg.*?</svg>", section, re.S).group(0)
    return link, qr


def test_a_share_link_made_on_the_computer_itself_carries_its_network_address(tmp_path):
    app = make_app(tmp_path, LAN_ADDRESSES=[LAN])
    client = strict_client(app)
    game_id = GameActions(client).new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    for address in ("http://127.0.0.1:8000", "http://localhost:8000"):
        link, qr = share_link(client, game_id, address)
        assert link.startswith(f"http://{LAN}:8000/live/")
        assert not addresses.is_loopback(addresses.hostname_of(link.split("/")[2]))
        assert qr == str(qr_svg(link)).strip()  # the code a phone scans holds that very link
        assert re.search(SHARE_LINK, f'value="{link}"')  # the other tests' share() reads it too


def test_a_share_link_made_from_a_phone_keeps_the_address_the_phone_used(tmp_path):
    app = make_app(tmp_path, LAN_ADDRESSES=[LAN])
    client = strict_client(app)
    game_id = GameActions(client).new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    assert share_link(client, game_id, "https://kitchen.local:8000")[0].startswith("https://kitchen.local:8000/live/")


def test_the_network_address_is_found_when_serve_did_not_give_it(tmp_path, monkeypatch):
    monkeypatch.setattr(addresses, "discover_addresses", lambda: ["10.0.0.7"])
    addresses._discovered.cache_clear()
    app = make_app(tmp_path)
    client = strict_client(app)
    game_id = GameActions(client).new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    assert share_link(client, game_id, "http://127.0.0.1:5000")[0].startswith("http://10.0.0.7:5000/live/")
    addresses._discovered.cache_clear()


def test_a_configured_public_url_is_used_for_links_and_invites(tmp_path):
    app = make_app(tmp_path, PUBLIC_URL="https://cards.example.org", LAN_ADDRESSES=[LAN])
    client = strict_client(app)
    game_id = GameActions(client).new_game("shanghai-10", ["Ann", "Bob", "Cy"])
    assert share_link(client, game_id, "http://127.0.0.1:8000")[0].startswith("https://cards.example.org/live/")
    page = signed_in_at(app, client, "http://127.0.0.1:8000").post(
        "/family/invites", base_url="http://127.0.0.1:8000", follow_redirects=True)
    (invite,) = [i["value"] for i in inputs(page) if i.get("aria-label") == "Invite link"]
    assert invite.startswith("https://cards.example.org/join/")


def test_an_invite_made_on_the_computer_itself_carries_its_network_address(tmp_path):
    app = make_app(tmp_path, LAN_ADDRESSES=[LAN])
    page = signed_in_at(app, strict_client(app), "http://localhost:8000").post(
        "/family/invites", base_url="http://localhost:8000", follow_redirects=True)
    (invite,) = [i["value"] for i in inputs(page) if i.get("aria-label") == "Invite link"]
    assert invite.startswith(f"http://{LAN}:8000/join/")


@pytest.mark.parametrize("public_url", ["cards.example.org", "ftp://cards.example.org", "https://x.org/cards",
                                        "https://", "https://x.org/?a=1"])
def test_a_public_url_that_is_not_an_address_stops_the_start(tmp_path, public_url):
    with pytest.raises(ValueError, match="PUBLIC_URL must be the address phones use"):
        make_app(tmp_path, PUBLIC_URL=public_url)


def test_a_link_made_on_ipv6_loopback_carries_the_network_address(tmp_path):
    app = make_app(tmp_path, LAN_ADDRESSES=[LAN])
    with app.test_request_context("/", base_url="http://[::1]:8000"):
        assert addresses.external_url("sharing.board", token="t") == f"http://{LAN}:8000/live/t"
    with app.test_request_context("/", base_url="http://[fd00::5]:8000"):
        assert addresses.base_url() == "http://[fd00::5]:8000"


def test_discovered_addresses_leave_out_loopback_and_link_local_and_put_home_networks_first(monkeypatch):
    monkeypatch.setattr(addresses, "_route_address", lambda family: "100.64.3.4")
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: [
        (socket.AF_INET, 1, 6, "", (ip, 0)) for ip in ("127.0.1.1", "169.254.7.7", "192.168.1.20", "100.64.3.4")])
    assert addresses.discover_addresses() == ["192.168.1.20", "100.64.3.4"]


@pytest.mark.parametrize("host, loopback", [("localhost", True), ("127.0.0.1", True), ("127.0.1.1", True),
                                            ("[::1]", True), ("0.0.0.0", True), ("app.localhost", True),
                                            ("192.168.1.20", False), ("kitchen.local", False),
                                            ("cards.example.org", False)])
def test_only_this_computer_s_own_addresses_count_as_loopback(host, loopback):
    assert addresses.is_loopback(host) is loopback


@pytest.mark.parametrize("hostname, expected", [("Kitchen", "kitchen.local"), ("kitchen.lan", "kitchen.local"),
                                                ("Ann's Laptop", None), ("ann_laptop", "ann-laptop.local"),
                                                ("localhost", None)])
def test_the_computer_s_local_name_comes_from_its_host_name(monkeypatch, hostname, expected):
    monkeypatch.setattr(socket, "gethostname", lambda: hostname)
    assert addresses.local_name() == expected


# -- the first visit's set-up code --------------------------------------------------------


@pytest.fixture
def served_instance(tmp_path):
    """A new instance as ``serve`` starts it: nobody signed up, a set-up code printed."""
    app = make_app(tmp_path, family=None, SETUP_CODE=CODE)
    return app, strict_client(app, None)


def test_the_first_visit_asks_for_the_set_up_code_and_creates_the_family_with_it(served_instance):
    app, client = served_instance
    page = client.get("/welcome")
    assert "setup_code" in {i.get("name") for i in inputs(page)}
    assert CODE not in page.text  # the page never shows it: it is on the computer's screen only
    response = client.post("/welcome", data={**new_family_data(), "setup_code": " 5093 1176 "})
    assert response.status_code == 302
    assert member_row(app, "ann") is not None


@pytest.mark.parametrize("code, message", [("", SETUP_CODE_MISSING), ("1234-5678", SETUP_CODE_WRONG),
                                           ("5093-117", SETUP_CODE_WRONG), ("50931176" * 20, SETUP_CODE_WRONG)])
def test_without_the_right_set_up_code_nobody_claims_the_instance(served_instance, code, message):
    app, client = served_instance
    before = db_snapshot(app)
    page = client.post("/welcome", data={**new_family_data(), "setup_code": code})
    assert page.status_code == 200
    assert element_text(page, "setup_code-errors") == message
    assert input_value(page, "family_name") == "The Parkers" and input_value(page, "username") == "ann"
    assert input_value(page, "setup_code") == ""  # a wrong guess is not shown back
    assert member_row(app, "ann") is None
    assert {t: rows for t, rows in db_snapshot(app).items() if t != "sign_in_failure"} == \
        {t: rows for t, rows in before.items() if t != "sign_in_failure"}


def test_guessing_the_set_up_code_is_held_to_the_sign_in_limit(served_instance):
    app, client = served_instance
    guess = {**new_family_data(), "setup_code": "0000-0000"}
    for _ in range(account_service.MAX_FAILURES_PER_ADDRESS):
        assert client.post("/welcome", data=guess, environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 200
    refused = client.post("/welcome", data={**guess, "setup_code": CODE}, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert refused.status_code == 429 and account_service.TOO_MANY in text_of(refused)
    assert member_row(app, "ann") is None
    other = client.post("/welcome", data={**guess, "setup_code": CODE}, environ_base={"REMOTE_ADDR": "10.0.0.10"})
    assert other.status_code == 302


def test_without_serve_or_after_the_first_family_no_code_is_asked(tmp_path, served_instance):
    plain = strict_client(make_app(tmp_path / "run", family=None), None)  # flask run, or tests
    assert "setup_code" not in {i.get("name") for i in inputs(plain.get("/welcome"))}
    app, client = served_instance
    client.post("/welcome", data={**new_family_data(), "setup_code": CODE})
    stranger = strict_client(app, None)
    page = stranger.get("/signup")  # another family on the same server: open sign-up, no code
    assert page.status_code == 200 and "setup_code" not in {i.get("name") for i in inputs(page)}
    assert stranger.post("/signup", data=new_family_data("The Smiths", "sam")).status_code == 302


# -- the phone set-up page ----------------------------------------------------------------


@pytest.fixture
def served_https(tmp_path, monkeypatch):
    """An app as ``serve --https`` runs it on port 8000 (plain HTTP on 8001), its authority made."""
    monkeypatch.setenv("SCOREKEEPER_INSTANCE_PATH", str(tmp_path / "instance"))
    app = make_app(tmp_path, LAN_ADDRESSES=[LAN], SERVE_PORT=8000, SERVE_HTTP_PORT=8001)
    files = certificates.tls_files(app.instance_path)
    ca, _ = certificates.ensure_ca(files, NAME)
    return app, ca


def test_the_set_up_page_offers_the_family_certificate_and_the_steps_for_iphone_and_android(served_https):
    app, ca = served_https
    visitor = strict_client(app, None)  # a new phone: nobody signed in
    page = visitor.get("/phone", base_url=f"http://{LAN}:8001")
    text = text_of(page)
    assert page.status_code == 200
    assert "Download the certificate" in text and certificates.fingerprint(ca) in text
    assert "Certificate Trust Settings" in text and "Install a certificate" in text and "CA certificate" in text
    assert f'href="https://{LAN}:8000/phone"' in page.text  # "Check this phone": the same page, over HTTPS
    for src in re.findall(r'(?:src|href)="([^"]+)"', page.text):
        assert src.startswith("/") or src.startswith(f"https://{LAN}:8000/"), src  # nothing from outside
    download = visitor.get("/phone/ca.crt", base_url=f"http://{LAN}:8001")
    assert download.mimetype == "application/x-x509-ca-cert"
    assert x509.load_der_x509_certificate(download.data) == ca
    assert "attachment" in download.headers["Content-Disposition"]


def test_the_set_up_page_over_https_shows_another_phone_a_code_to_scan(served_https):
    app, _ = served_https
    page = signed_in_at(app, strict_client(app), "https://127.0.0.1:8000").get("/phone", base_url="https://127.0.0.1:8000")
    setup = f"http://{LAN}:8001/phone"
    assert setup in text_of(page)
    assert str(qr_svg(setup)) in page.text
    assert "Check this phone" not in text_of(page).replace("tap Check this phone", "")


def test_the_family_page_leads_to_the_set_up_page(client):
    assert 'href="/phone"' in client.get("/family").text


def test_the_set_up_page_without_a_family_certificate(app, client):
    plain = text_of(client.get("/phone"))
    assert "This server speaks plain HTTP" in plain and "flask --app scorekeeper serve --https" in plain
    assert client.get("/phone/ca.crt").status_code == 404
    public = text_of(client.get("/phone", base_url="https://cards.example.org"))  # behind Caddy
    assert "Nothing to set up" in public and "This server speaks plain HTTP" not in public


def test_every_page_carries_the_plain_http_hint_for_the_script_to_show(client):
    """Shown or not before the first paint (early.js, a classic script in the head, marks the page),
    so it never pushes a page down; https_hint.js marks it seen. Not on the set-up page itself."""
    page = client.get("/")
    (hint,) = re.findall(r"<p class=\"https-hint\"[^>]*>.*?</p>", page.text, re.S)
    assert 'href="/phone"' in hint
    head = page.text.split("</head>")[0]
    assert '<script src="/static/js/early.js' in head and "show-https-hint" in client.get("/static/js/early.js").text
    assert head.index("early.js") < head.index("main.js")
    assert 'import "./https_hint.js"' in client.get("/static/js/main.js").text
    assert "data-https-hint" not in client.get("/phone").text


# -- the plain-HTTP port ------------------------------------------------------------------


def test_the_plain_http_port_serves_the_set_up_page_and_sends_everything_else_to_https(served_https):
    app, _ = served_https
    plain = Client(redirect_to_https(app, 8000, lambda: LAN))
    for path in ("/", "/games/new?variant=family-7", "/login", "/phonebook"):
        response = plain.get(path, headers={"Host": "kitchen.local:8001"})
        assert response.status_code == 302
        assert response.headers["Location"] == f"https://kitchen.local:8000{path}"
    assert plain.get("/phone", headers={"Host": f"{LAN}:8001"}).status_code == 200
    assert plain.get("/phone/ca.crt", headers={"Host": f"{LAN}:8001"}).status_code == 200
    assert plain.get("/static/app.css", headers={"Host": f"{LAN}:8001"}).status_code == 200
    odd = plain.get("/", headers={"Host": "evil.example\"><script>:8001"})
    assert odd.headers["Location"] == f"https://{LAN}:8000/"


# -- what serve prints --------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def serve_app(tmp_path, monkeypatch):
    """``serve`` as a command on an app whose servers bind their ports but do not serve."""
    monkeypatch.setenv("SCOREKEEPER_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.setattr(addresses, "discover_addresses", lambda: [LAN, "203.0.113.9"])
    monkeypatch.setattr(addresses, "local_name", lambda: NAME)
    monkeypatch.setattr(serve.Servers, "run", lambda self: self.stop())
    return make_app(tmp_path, family=None)


def test_serve_prints_the_phones_addresses_a_qr_code_and_the_set_up_code(serve_app, caplog):
    port = _free_port()
    result = serve_app.test_cli_runner().invoke(args=["serve", "--port", str(port)])
    assert result.exit_code == 0, result.output
    out = result.output
    assert f"  http://{LAN}:{port}\n  http://203.0.113.9:{port}\n  http://{NAME}:{port}\n" in out
    assert f"On this computer: http://localhost:{port}" in out
    assert serve._qr(f"http://{LAN}:{port}/") in out  # the QR code of the first address, in block characters
    code = re.search(r"Set-up code for the first visit: (\d{4}-\d{4})", out).group(1)
    assert serve_app.config["SETUP_CODE"] == code and out.count(code) == 1
    assert code not in caplog.text  # only on the terminal, never in a log
    assert "Start with --https" in out
    assert serve_app.config["LAN_ADDRESSES"] == [LAN, "203.0.113.9"]


def test_serve_https_makes_the_family_authority_and_points_the_qr_code_at_the_set_up_page(serve_app):
    port, http_port = _free_port(), _free_port()
    result = serve_app.test_cli_runner().invoke(args=["serve", "--https", "--port", str(port),
                                                      "--http-port", str(http_port)])
    assert result.exit_code == 0, result.output
    files = certificates.tls_files(serve_app.instance_path)
    ca = x509.load_pem_x509_certificate(files.ca_cert.read_bytes())
    out = result.output
    assert f"  https://{LAN}:{port}\n  https://{NAME}:{port}\n" in out
    assert "203.0.113.9 is not a home-network address" in out
    assert f"open http://{LAN}:{http_port}/phone" in out and serve._qr(f"http://{LAN}:{http_port}/phone") in out
    assert certificates.fingerprint(ca) in out and str(files.ca_cert) in out
    assert serve_app.config["SESSION_COOKIE_SECURE"] and serve_app.config["REMEMBER_COOKIE_SECURE"]
    assert serve_app.config["LAN_ADDRESSES"] == [LAN]


def test_serve_prints_no_code_once_the_family_exists(tmp_path, monkeypatch):
    monkeypatch.setenv("SCOREKEEPER_INSTANCE_PATH", str(tmp_path / "instance"))
    monkeypatch.setattr(serve.Servers, "run", lambda self: self.stop())
    app = make_app(tmp_path)
    result = app.test_cli_runner().invoke(args=["serve", "--host", "127.0.0.1", "--port", str(_free_port())])
    assert result.exit_code == 0, result.output
    assert "Set-up code" not in result.output and app.config["SETUP_CODE"] is None
    assert "Only this computer can open it (--host 127.0.0.1)" in result.output
    assert app.config["LAN_ADDRESSES"] == []  # links made on it keep its own address


def test_serve_on_a_port_in_use_says_so(serve_app):
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = serve_app.test_cli_runner().invoke(args=["serve", "--port", str(port)])
    assert result.exit_code != 0
    assert f"Cannot listen on 0.0.0.0 port {port}" in result.output and "--port" in result.output


def test_a_new_address_is_followed_by_the_links_and_a_certificate_naming_it(serve_app, monkeypatch):
    files = certificates.tls_files(serve_app.instance_path)
    plan = serve.plan_for("0.0.0.0", 8000, True, 8001)
    with serve_app.app_context():
        serve._certificate(serve_app)
    reloads = []
    servers = serve.Servers(main=None, tls=type("Tls", (), {"reload": lambda self: reloads.append(1)})())
    serve.look_again(serve_app, plan, servers)  # nothing changed
    assert reloads == [] and plan.addresses == [LAN]

    monkeypatch.setattr(addresses, "discover_addresses", lambda: ["192.168.1.31"])
    serve.look_again(serve_app, plan, servers)
    assert reloads == [1]
    names = x509.load_pem_x509_certificate(files.cert.read_bytes()).extensions.get_extension_for_class(
        x509.SubjectAlternativeName).value
    assert "192.168.1.31" in {str(a) for a in names.get_values_for_type(x509.IPAddress)}
    assert serve_app.config["LAN_ADDRESSES"] == ["192.168.1.31"]


@pytest.mark.parametrize("host, ok", [("192.168.1.20", True), ("10.1.2.3", True), ("172.31.0.1", True),
                                      ("172.32.0.1", False), ("100.64.3.4", False), ("203.0.113.9", False),
                                      ("fd12::1", True), ("2001:db8::1", False), ("kitchen.local", True),
                                      ("localhost", True), ("local.example.org", False), ("notlocal", False)])
def test_what_the_family_authority_may_name(host, ok):
    assert certificates.permitted(host) is ok
