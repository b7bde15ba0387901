"""A throwaway PostgreSQL server for tests: `initdb` into a fresh folder, `pg_ctl start` on 127.0.0.1 and a
free port, one database per test, and stop + delete at the end.

The server binaries refuse to run as root, so under root they run as the `postgres` OS user (`runuser`), and
the folder is handed to that user. `PostgresServer.unavailable()` says why a server cannot be started here
(tests skip with that reason). Every command has a timeout, `stop` kills the postmaster if `pg_ctl stop` does
not finish, and a watchdog process (this file run as a script) stops the server and deletes its folder when the
test process ends without calling `stop` (even on SIGKILL): no server outlives the tests.
"""

from __future__ import annotations

import atexit
import os
import pwd
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SERVER_USER = "postgres"  # the OS user the server runs as when the tests run as root
SUPERUSER = "tauplay"  # the database role the tests connect as (with a password, like a shared server)
COMMAND_TIMEOUT = 60.0  # seconds for initdb / pg_ctl start / pg_ctl stop
SEARCH_DIRS = ("/usr/lib/postgresql/*/bin", "/usr/local/pgsql/bin", "/opt/homebrew/opt/postgresql*/bin")
# Durability is pointless for a throwaway server and costs seconds on a shared machine.
SETTINGS = {"fsync": "off", "synchronous_commit": "off", "full_page_writes": "off", "shared_buffers": "16MB",
            "max_connections": "60", "unix_socket_directories": "''", "listen_addresses": "'127.0.0.1'"}


def find_bin_dir() -> Path | None:
    """The folder holding initdb and pg_ctl: PATH first, then the usual install places (newest version)."""
    found = shutil.which("initdb")
    if found and shutil.which("pg_ctl"):
        return Path(found).resolve().parent
    for pattern in SEARCH_DIRS:
        for folder in sorted(Path("/").glob(pattern.lstrip("/")), reverse=True):
            if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
                return folder
    return None


def stop_postmaster(data: Path, grace: float = 10.0) -> None:
    """Stop the server whose data folder this is by signal: immediate shutdown, then SIGKILL after `grace`."""
    try:
        pid = int((data / "postmaster.pid").read_text().splitlines()[0])
    except (OSError, ValueError, IndexError):
        return
    for sig in (signal.SIGQUIT, signal.SIGKILL):  # SIGQUIT: immediate shutdown, shared memory released
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            return
        deadline = time.monotonic() + grace
        while time.monotonic() < deadline:
            try:
                os.kill(pid, 0)
            except (ProcessLookupError, PermissionError):
                return
            time.sleep(0.05)


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PostgresServer:
    """One PostgreSQL server in a temporary folder. Use `start()`, `create_database()`, `stop()`."""

    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.as_root = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="tauplay-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.password = secrets.token_hex(12)
        self.port = 0
        self.running = False
        self._databases = 0
        self._watchdog: subprocess.Popen[bytes] | None = None

    @staticmethod
    def unavailable() -> str | None:
        """Why no server can be started on this machine, or None when one can."""
        try:
            import psycopg  # noqa: F401
        except ImportError:
            return "psycopg is not installed (pip install -e '.[postgres]')"
        if find_bin_dir() is None:
            return "PostgreSQL server binaries (initdb, pg_ctl) not found; install postgresql"
        if os.geteuid() == 0:
            try:
                pwd.getpwnam(SERVER_USER)
            except KeyError:
                return f"running as root and there is no {SERVER_USER!r} OS user to run the server as"
            if shutil.which("runuser") is None:
                return "running as root and runuser is missing (needed to run the server as postgres)"
        return None

    # -- lifecycle ------------------------------------------------------------------------------------------------

    def _run(self, *argv: str) -> subprocess.CompletedProcess[str]:
        prefix = ["runuser", "-u", SERVER_USER, "--"] if self.as_root else []
        done = subprocess.run([*prefix, *argv], capture_output=True, text=True, timeout=COMMAND_TIMEOUT,
                              cwd=self.root)  # a folder the server user can enter
        if done.returncode != 0:
            raise RuntimeError(f"{Path(argv[0]).name} failed ({done.returncode}): "
                               f"{(done.stderr or done.stdout).strip()}\n{self._log_tail()}")
        return done

    def _log_tail(self) -> str:
        try:
            return "server log:\n" + "\n".join(self.log.read_text(errors="replace").splitlines()[-20:])
        except OSError:
            return ""

    def start(self) -> PostgresServer:
        atexit.register(self.stop)  # an interrupted test session still stops the server
        # ...and a killed one: the watchdog's stdin closes when this process ends, however it ends.
        self._watchdog = subprocess.Popen([sys.executable, __file__, str(self.root)], stdin=subprocess.PIPE,
                                          start_new_session=True)
        pwfile = self.root / "pw"
        pwfile.write_text(self.password + "\n")
        if self.as_root:
            self.root.chmod(0o700)
            shutil.chown(self.root, SERVER_USER, SERVER_USER)
            shutil.chown(pwfile, SERVER_USER, SERVER_USER)
        self._run(str(self.bin_dir / "initdb"), "-D", str(self.data), "-U", SUPERUSER, f"--pwfile={pwfile}",
                  "--auth-host=scram-sha-256", "--auth-local=peer", "-E", "UTF8", "--locale=C", "--no-sync")
        pwfile.unlink()
        with (self.data / "postgresql.conf").open("a") as conf:
            conf.write("".join(f"{key} = {value}\n" for key, value in SETTINGS.items()))
        for attempt in range(3):  # another process may take the free port between the probe and the bind
            self.port = free_port()
            try:
                self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-l", str(self.log), "-w",
                          "-t", str(int(COMMAND_TIMEOUT)), "-o", f"-p {self.port}", "start")
            except RuntimeError:
                stop_postmaster(self.data)
                if attempt == 2:
                    raise
                continue
            break
        self.running = True
        return self

    def stop(self) -> None:
        """Stop the server (fast shutdown, then a kill if that hangs) and delete its folder. Idempotent."""
        if self.running:
            self.running = False
            try:
                self._run(str(self.bin_dir / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w",
                          "-t", "30", "stop")
            except (RuntimeError, subprocess.TimeoutExpired):
                stop_postmaster(self.data)
        else:
            stop_postmaster(self.data)
        shutil.rmtree(self.root, ignore_errors=True)
        atexit.unregister(self.stop)
        watchdog, self._watchdog = self._watchdog, None
        if watchdog is not None:  # nothing left for it to do: let it go
            try:
                watchdog.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                watchdog.kill()
                watchdog.wait()

    # -- databases ------------------------------------------------------------------------------------------------

    def url(self, database: str = "postgres", driver: str = "postgresql+psycopg") -> str:
        return f"{driver}://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/{database}"

    def admin(self):  # -> psycopg.Connection (imported lazily: psycopg may be missing)
        import psycopg

        return psycopg.connect(host="127.0.0.1", port=self.port, user=SUPERUSER, password=self.password,
                               dbname="postgres", autocommit=True, connect_timeout=10)

    def create_database(self, prefix: str = "t") -> str:
        """A new empty database; returns its SQLAlchemy URL (password included)."""
        self._databases += 1
        name = f"{prefix}_{self._databases}"
        with self.admin() as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.rsplit("/", 1)[1]
        with self.admin() as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


if __name__ == "__main__":  # the watchdog: python postgres.py ROOT
    sys.stdin.buffer.read()  # returns at EOF, i.e. when the test process has ended or called stop()
    stop_postmaster(Path(sys.argv[1]) / "data")
    shutil.rmtree(sys.argv[1], ignore_errors=True)
