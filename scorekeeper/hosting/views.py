"""Set up this phone: the family's certificate, how to trust it on an iPhone and on Android, and a
check that it worked. Open without signing in: a phone needs it before it can open the app."""

from __future__ import annotations

from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding
from flask import Blueprint, abort, current_app, render_template, request

from ..web.access import public
from ..web.qr import qr_svg
from . import addresses, certificates

bp = Blueprint("hosting", __name__)


def _family_ca() -> x509.Certificate | None:
    pem = certificates.ca_pem(current_app.instance_path)
    return x509.load_pem_x509_certificate(pem) if pem else None


def _certificate_name(ca: x509.Certificate) -> str:
    """The name a phone lists the authority under (its common name)."""
    names = ca.subject.get_attributes_for_oid(x509.NameOID.COMMON_NAME)
    return str(names[0].value) if names else "Scorekeeper family CA"


@bp.get("/phone")
@public
def phone():
    """What this phone needs for the offline copy, screen on, installing and sharing."""
    http_port, port = current_app.config.get("SERVE_HTTP_PORT"), current_app.config.get("SERVE_PORT")
    ca = _family_ca() if http_port else None  # served by ``serve --https``
    context = {"mode": "plain", "secure": request.is_secure}
    if ca is not None:
        here = addresses.hostname_of(request.host) or addresses.phone_host()
        setup_url = f"http://{addresses.with_port(addresses.phone_host(), http_port)}/phone"  # for another phone
        context.update(
            mode="family", ca_name=_certificate_name(ca), fingerprint=certificates.fingerprint(ca),
            https_url=f"https://{addresses.with_port(here, port)}/phone", setup_url=setup_url,
            setup_qr=qr_svg(setup_url) if request.is_secure else None,
        )
    elif request.is_secure:
        context["mode"] = "public"  # a certificate from a public authority (Caddy): nothing to trust
    return render_template("hosting/phone.html", **context)


@bp.get("/phone/ca.crt")
@public
def ca_certificate():
    """The family's authority, in the form phones install (DER, ``application/x-x509-ca-cert``)."""
    ca = _family_ca()
    if ca is None:
        abort(404, "This server has no certificate of its own: it was not started with --https.")
    name = (addresses.local_name() or "family").split(".")[0]
    response = current_app.response_class(ca.public_bytes(Encoding.DER), mimetype="application/x-x509-ca-cert")
    response.headers["Content-Disposition"] = f'attachment; filename="Scorekeeper-{name}.crt"'
    return response
