"""The server behind ``serve``: cheroot, a pure-Python threaded WSGI server that does TLS with
Python's own ``ssl`` and runs on Linux, macOS and Windows.

Two changes to cheroot's TLS: the handshake happens in the worker thread that serves the
connection, not in the thread that accepts every connection (there, one phone going quiet mid-
handshake held up every other phone for the whole socket timeout); and a phone that speaks
plain HTTP to the HTTPS port, or drops a certificate it does not trust yet, is let go quietly.

With ``--https`` a second, plain-HTTP port serves only the phone set-up page (a phone must get
the family's certificate before it can open HTTPS) and redirects everything else to HTTPS.
"""

from __future__ import annotations

import signal
import socket
import ssl
import threading
from collections.abc import Callable
from dataclasses import dataclass

from cheroot import errors, wsgi
from cheroot.server import HTTPConnection
from cheroot.ssl.builtin import BuiltinSSLAdapter
from werkzeug.utils import redirect
from werkzeug.wrappers import Request, Response

from .addresses import hostname_of, with_port

THREADS = 16
HEADER_LIMIT = 64 * 1024  # request line and headers; cheroot's default is unlimited
PLAIN_HTTP_PATHS = ("/phone/", "/static/")  # with /phone itself, what the plain-HTTP port serves


class _TlsAdapter(BuiltinSSLAdapter):
    """cheroot's TLS, handshake left to the worker (``_Connection``); its context can be replaced."""

    def __init__(self, certificate: str, private_key: str):
        super().__init__(certificate, private_key)
        self._files = (certificate, private_key)

    def wrap(self, sock):
        try:
            tls = self.context.wrap_socket(sock, do_handshake_on_connect=False, server_side=True)
        except OSError as error:
            raise errors.FatalSSLAlert(*error.args) from error
        return tls, {"wsgi.url_scheme": "https", "HTTPS": "on"}

    def reload(self) -> None:
        """Use the certificate files again (re-issued): new connections get the new certificate."""
        context = ssl.create_default_context(purpose=ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(*self._files)
        self.context = context  # one assignment: a connection being wrapped keeps the old one


class _Connection(HTTPConnection):
    """A connection whose TLS handshake is done here, once, before its first request is read."""

    handshake_done = False

    def communicate(self):
        if not self.handshake_done and isinstance(self.socket, ssl.SSLSocket):
            try:
                self.socket.do_handshake()
            except ssl.SSLError as error:
                if error.reason == "HTTP_REQUEST":
                    self._send_to_https()
                return False  # a phone that does not trust the certificate yet, or one that went quiet
            except (OSError, ValueError):
                return False
            self.handshake_done = True
        return super().communicate()

    def _send_to_https(self) -> None:
        """Plain HTTP on the HTTPS port (an address typed without ``https://``): a redirect, written
        past TLS straight onto the socket, to the address the phone reached us at."""
        try:
            here = self.socket.getsockname()
            location = f"https://{with_port(here[0], here[1])}/"
            reply = (f"HTTP/1.1 302 Found\r\nLocation: {location}\r\n"
                     "Content-Length: 0\r\nConnection: close\r\n\r\n")
            socket.socket.sendall(self.socket, reply.encode("ascii"))
        except OSError:
            pass


def redirect_to_https(app, https_port: int, fallback_host: Callable[[], str]):
    """The plain-HTTP port: the set-up page and its files from ``app``, a redirect for the rest."""

    def plain_http(environ, start_response):
        path = environ.get("PATH_INFO", "")
        if path == "/phone" or path.startswith(PLAIN_HTTP_PATHS):
            return app(environ, start_response)
        request = Request(environ)
        host = hostname_of(request.host) or fallback_host()
        target = f"https://{with_port(host, https_port)}{request.full_path.rstrip('?')}"
        # 302, not 301: a browser would keep a 301 for good, and the ports may change.
        response: Response = redirect(target, 302)
        return response(environ, start_response)

    return plain_http


@dataclass
class Servers:
    """The running servers: the app's (HTTP or HTTPS) and, with HTTPS, the plain-HTTP one."""

    main: wsgi.Server
    plain: wsgi.Server | None = None
    tls: _TlsAdapter | None = None

    def prepare(self) -> None:
        """Bind the ports (``OSError`` when one is taken)."""
        for server in (self.main, self.plain):
            if server is not None:
                server.prepare()

    def run(self) -> None:
        """Serve until Ctrl+C (or SIGTERM, as a service manager stops it)."""
        if threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGTERM, _interrupt)
        if self.plain is not None:
            threading.Thread(target=self.plain.serve, daemon=True, name="plain-http").start()
        try:
            self.main.serve()
        except KeyboardInterrupt:
            pass
        finally:
            self.stop()

    def stop(self) -> None:
        for server in (self.plain, self.main):
            if server is not None and server.ready:
                server.stop()


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _server(host: str, port: int, app, body_limit: int) -> wsgi.Server:
    server = wsgi.Server((host, port), app, numthreads=THREADS, server_name="scorekeeper")
    server.max_request_header_size = HEADER_LIMIT
    server.max_request_body_size = body_limit
    return server


def make_servers(app, host: str, port: int, *, tls_files=None, http_port: int | None = None,
                 fallback_host: Callable[[], str] = lambda: "localhost") -> Servers:
    """The app on ``host:port``; with ``tls_files`` (certificate, key) over HTTPS, and plain HTTP on
    ``http_port`` for the set-up page."""
    body_limit = int(app.config["MAX_CONTENT_LENGTH"]) + 64 * 1024  # the app answers first, with a message
    main = _server(host, port, app, body_limit)
    if tls_files is None:
        return Servers(main)
    main.ssl_adapter = tls = _TlsAdapter(*map(str, tls_files))
    main.ConnectionClass = _Connection
    plain = _server(host, http_port, redirect_to_https(app, port, fallback_host), body_limit)
    return Servers(main, plain, tls)
