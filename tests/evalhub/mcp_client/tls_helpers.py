"""A self-signed certificate made in the test, and a TLS front for the demo server (a byte pipe in a thread)."""

from __future__ import annotations

import asyncio
import datetime as dt
import ipaddress
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from .helpers import free_port


def self_signed(directory: Path) -> tuple[Path, Path]:
    """(certificate.pem, key.pem) for 127.0.0.1, its own CA: the certificate doubles as the CA bundle."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "evalhub-test")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(minutes=5))
        .not_valid_after(now + dt.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = directory / "cert.pem", directory / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    )
    return cert_path, key_path


@contextmanager
def tls_front(target_port: int, cert: Path, key: Path, *, max_version: ssl.TLSVersion | None = None) -> Iterator[int]:
    """Listen with TLS on a free port and pipe every connection to 127.0.0.1:`target_port`; yields the port."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    if max_version is not None:
        context.maximum_version = max_version
    port = free_port()
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except (ConnectionError, ssl.SSLError):
            pass
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        target_reader, target_writer = await asyncio.open_connection("127.0.0.1", target_port)
        await asyncio.gather(pipe(reader, target_writer), pipe(target_reader, writer))

    servers: list[asyncio.Server] = []

    async def serve() -> None:
        servers.append(await asyncio.start_server(handle, "127.0.0.1", port, ssl=context))
        ready.set()

    async def shut_down() -> None:
        # Close every pipe before the loop stops: a coroutine left pending is finalised later, printing a traceback
        # from whichever thread collects it (Python 3.11's traceback module parses source with `ast`, which races
        # pytest's assertion rewriting and fails the session with "AST constructor recursion depth mismatch").
        for server in servers:
            server.close()
        pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(serve())
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(10)
    try:
        yield port
    finally:
        asyncio.run_coroutine_threadsafe(shut_down(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.close()
