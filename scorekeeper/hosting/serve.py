"""``flask --app scorekeeper serve`` (or ``scorekeeper``): the family's games on the home network.

At start it prints the addresses phones open, a QR code of the first, and, until the family
exists, a one-time set-up code that the first visit must type, so nobody else on the Wi-Fi can
claim the instance. With ``--https`` it serves HTTPS with the family's own certificate
(``certificates``) and a plain-HTTP port for the phone set-up page.
"""

from __future__ import annotations

import io
import secrets
import sys
import threading
from dataclasses import dataclass, field

import click
import segno
from cryptography import x509
from flask import Flask, current_app
from flask.cli import ScriptInfo, with_appcontext

from ..accounts.service import has_members
from ..extensions import db
from . import addresses, certificates
from .server import Servers, make_servers

WILDCARDS = ("0.0.0.0", "::", "")
WATCH_SECONDS = 30  # how often the computer's addresses (and the certificate's end) are looked at


def new_setup_code() -> str:
    """Eight digits in two groups (``4821-0937``), easy to type on a phone's number pad."""
    digits = f"{secrets.randbelow(10**8):08d}"
    return f"{digits[:4]}-{digits[4:]}"


@dataclass
class Plan:
    """What ``serve`` serves, and where phones find it."""

    host: str
    port: int
    https: bool
    http_port: int | None = None
    addresses: list[str] = field(default_factory=list)  # for phones, the first in the QR code
    unnamed: list[str] = field(default_factory=list)  # addresses the certificate may not name
    local_name: str | None = None
    setup_code: str | None = None
    ca_fingerprint: str | None = None
    ca_path: str | None = None

    @property
    def scheme(self) -> str:
        return "https" if self.https else "http"

    def phone_urls(self) -> list[str]:
        names = [*self.addresses, *([self.local_name] if self.local_name else [])]
        return [f"{self.scheme}://{addresses.with_port(name, self.port)}" for name in names]

    def qr_url(self) -> str | None:
        """The first address, or with HTTPS the set-up page on the plain-HTTP port (a phone must
        trust the family's certificate before it can open the first address)."""
        first = next(iter(self.addresses or [self.local_name]), None)
        if first is None:
            return None
        if self.https:
            return f"http://{addresses.with_port(first, self.http_port)}/phone"
        return f"http://{addresses.with_port(first, self.port)}/"


def plan_for(host: str, port: int, https: bool, http_port: int | None) -> Plan:
    """Where phones find this computer, for a server on ``host``."""
    plan = Plan(host, port, https, http_port)
    if host in WILDCARDS:
        plan.addresses = addresses.discover_addresses()
        plan.local_name = addresses.local_name()
    elif not addresses.is_loopback(host):
        plan.addresses = [host]
    if https:
        plan.unnamed = [a for a in plan.addresses if not certificates.permitted(a)]
        plan.addresses = [a for a in plan.addresses if certificates.permitted(a)]
    return plan


def _qr(url: str) -> str:
    out = io.StringIO()
    segno.make(url, error="m").terminal(out=out, compact=True)
    return out.getvalue()


def banner(plan: Plan) -> str:
    """What the terminal shows at start."""
    lines = ["", "Scorekeeper is serving the family's games.", ""]
    urls = plan.phone_urls()
    if urls:
        lines += ["Phones on the home network open:", *(f"  {url}" for url in urls)]
    elif addresses.is_loopback(plan.host):
        lines.append(f"Only this computer can open it (--host {plan.host}): leave out --host for the home network.")
    else:
        lines.append("No network address found: is this computer on the Wi-Fi?")
    lines += [f"On this computer: {plan.scheme}://localhost:{plan.port}", ""]
    for address in plan.unnamed:
        lines.append(f"({address} is not a home-network address, so the family's certificate cannot name it.)")
    qr = plan.qr_url()
    if qr and plan.https:
        lines += ["Set up each phone once: scan this with its camera, or open " + qr, _qr(qr)]
    elif qr:
        lines += ["Scan this with a phone's camera to open it:", _qr(qr)]
    if plan.setup_code:
        lines += [f"Set-up code for the first visit: {plan.setup_code}  (it creates the family; needed once)", ""]
    if plan.https:
        lines += [f"The family's certificate authority: {plan.ca_path}",
                  f"  SHA-256 {plan.ca_fingerprint}", ""]
    else:
        lines += ["Plain HTTP: phones keep no offline copy, do not keep the screen on, cannot install the app",
                  "or share. Start with --https to have them (docs/hosting.md).", ""]
    lines.append("Stop with Ctrl+C.")
    return "\n".join(lines)


def _certificate(app: Flask) -> tuple[certificates.TlsFiles, x509.Certificate, bool]:
    """The family's authority and this computer's certificate, made or renewed as needed:
    (files, authority, whether the server certificate was made now). It names the computer's
    ``NAME.local`` and addresses whatever ``--host`` is, so the files fit every way of serving."""
    files = certificates.tls_files(app.instance_path)
    name = addresses.local_name()
    ca, _ = certificates.ensure_ca(files, name or "this computer")
    made = certificates.ensure_server_certificate(files, ca, name, addresses.discover_addresses())
    return files, ca, made


def _configure(app: Flask, plan: Plan) -> None:
    """Tell the app where phones reach it (links, QR codes, the set-up page) and what to ask."""
    app.config["LAN_ADDRESSES"] = list(plan.addresses)
    app.config["SERVE_PORT"], app.config["SERVE_HTTP_PORT"] = plan.port, plan.http_port
    if plan.https:
        # Cookies only over HTTPS. No Strict-Transport-Security here: it would bind NAME.local to
        # HTTPS on every port for a year, and lock phones out if the family goes back to plain HTTP.
        app.config["SESSION_COOKIE_SECURE"] = app.config["REMEMBER_COOKIE_SECURE"] = True
    if not has_members():
        plan.setup_code = app.config.get("SETUP_CODE") or new_setup_code()
        app.config["SETUP_CODE"] = plan.setup_code
    db.session.remove()  # the requests have their own sessions


def look_again(app: Flask, plan: Plan, servers: Servers) -> None:
    """Follow the computer to a new address: links name it, and with HTTPS a certificate that names
    it (or one renewed before its end) is served to new connections."""
    if plan.https and _certificate(app)[2]:
        servers.tls.reload()
    fresh = plan_for(plan.host, plan.port, plan.https, plan.http_port)
    if fresh.addresses != plan.addresses:
        plan.addresses = fresh.addresses
        app.config["LAN_ADDRESSES"] = list(fresh.addresses)
        click.echo("The computer's address changed. Phones now open: " + ", ".join(plan.phone_urls()))


def _watch(app: Flask, plan: Plan, servers: Servers, stop: threading.Event) -> None:
    while not stop.wait(WATCH_SECONDS):
        try:
            look_again(app, plan, servers)
        except Exception as error:  # the server goes on with what it had
            click.echo(f"Could not look at the computer's addresses: {error}", err=True)


@click.command("serve")
@click.option("--host", default="0.0.0.0", show_default=True,
              help="Address to listen on: every network of this computer by default; 127.0.0.1 for this computer only.")
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help="The app's port.")
@click.option("--https", "https", is_flag=True,
              help="Serve HTTPS with the family's own certificate (made on first start), which each phone trusts once.")
@click.option("--http-port", type=click.IntRange(1, 65535),
              help="With --https: the plain-HTTP port for the phone set-up page  [default: PORT + 1]")
@with_appcontext
def serve_command(host, port, https, http_port):
    """Serve the family's games to the phones on the home network."""
    app = current_app._get_current_object()
    if https:
        http_port = http_port or port + 1
        if http_port == port:
            raise click.BadParameter("must differ from --port.", param_hint="--http-port")
    plan = plan_for(host, port, https, http_port)
    files = None
    if https:
        try:
            files, ca, _ = _certificate(app)
        except certificates.CertificateError as error:
            raise click.ClickException(str(error)) from None
        plan.ca_fingerprint, plan.ca_path = certificates.fingerprint(ca), str(files.ca_cert)
    _configure(app, plan)
    servers = make_servers(app, host, port, tls_files=(files.cert, files.key) if files else None,
                           http_port=http_port, fallback_host=lambda: (plan.addresses or ["localhost"])[0])
    try:
        servers.prepare()
    except OSError as error:
        servers.stop()
        ports = f"{port} or {http_port}" if https else port
        raise click.ClickException(f"Cannot listen on {host} port {ports}: {error}. Choose another with --port.") \
            from None
    click.echo(banner(plan))
    stop = threading.Event()
    threading.Thread(target=_watch, args=(app, plan, servers, stop), daemon=True, name="addresses").start()
    try:
        servers.run()
    finally:
        stop.set()


def main(argv: list[str] | None = None) -> None:
    """The ``scorekeeper`` command: ``flask --app scorekeeper serve`` under a shorter name."""
    from .. import create_app

    serve_command.main(args=sys.argv[1:] if argv is None else argv, prog_name="scorekeeper",
                       obj=ScriptInfo(create_app=create_app))
