"""Real components for the environment backends' tests: an `sshd` on 127.0.0.1 and a container image
built here (no registry is reachable), each skipped with the reason when this machine cannot have it.

`start_sshd(folder)`: Debian's OpenSSH server on a free port with its own host key, `authorized_keys` and
`sshd_config` (`StrictModes no`, keys only), run in the foreground (`-D -e`) as the test's own child; and an
`ssh` wrapper put first on PATH that adds `-F` with a config of the test's (its own known_hosts file, so
nothing is written to the user's). `build_image(engine)`: `podman import` (or `docker import`) of a root
filesystem made from this machine's binaries and the libraries they load: bash, sh, coreutils, find.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.waiting import wait_until

SSHD = "/usr/sbin/sshd"
MARKER = "/etc/hermes-test-image"  # a file only the test image has
# This machine refuses the engine's default runtime and rlimits (crun on hybrid cgroups, RLIMIT_NOFILE and
# RLIMIT_NPROC above what it allows): what the tests pass as docker_extra_args.
ENGINE_ARGS = ["--runtime", "runc", "--ulimit", "nofile=1024:1024", "--ulimit", "nproc=4096:4096"]


@dataclass
class Sshd:
    port: int
    key: Path  # the client's private key
    proc: subprocess.Popen[bytes]
    bin_dir: Path  # the folder with the `ssh` wrapper, to put first on PATH
    log: Path

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_sshd(folder: Path) -> Sshd:
    """An sshd for this test (skips with the reason when it cannot start here)."""
    if not os.path.exists(SSHD) or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None:
        pytest.skip("openssh-server / openssh-client are not installed")
    if os.geteuid() != 0:
        pytest.skip("the test sshd runs as root here (privilege separation needs it)")
    os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation directory
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("host_key", "client_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / name)], check=True)
    (folder / "authorized_keys").write_text((folder / "client_key.pub").read_text())
    port = _free_port()
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\n"
        f"AuthorizedKeysFile {folder / 'authorized_keys'}\nPidFile {folder / 'sshd.pid'}\n"
        "StrictModes no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nUsePAM no\n"
        "PermitRootLogin prohibit-password\nAcceptEnv none\nSubsystem sftp internal-sftp\n"
    )
    client_config = folder / "ssh_config"
    client_config.write_text(f"Host *\n  UserKnownHostsFile {folder / 'known_hosts'}\n  LogLevel ERROR\n")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "ssh"
    wrapper.write_text(f'#!/bin/sh\nexec {shutil.which("ssh")} -F {client_config} "$@"\n')
    wrapper.chmod(0o755)
    log = folder / "sshd.log"
    proc = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(config)],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=open(log, "wb"),  # noqa: SIM115 - the child holds it
    )

    def listening() -> bool:
        if proc.poll() is not None:
            return True
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return True
        except OSError:
            return False

    wait_until(listening, "sshd to listen", timeout=10)
    if proc.poll() is not None:
        pytest.skip(f"sshd could not start here: {log.read_text()[-300:]}")
    return Sshd(port, folder / "client_key", proc, bin_dir, log)


def container_engine() -> str:
    """`podman` (what this machine has), else a `docker` whose daemon answers; skips without either."""
    if shutil.which("podman"):
        return "podman"
    docker = shutil.which("docker")
    if docker and subprocess.run([docker, "info"], capture_output=True, timeout=30).returncode == 0:
        return "docker"
    pytest.skip("no container engine here (podman, or docker with a daemon)")


_BINARIES = (
    "bash", "sh", "cat", "ls", "mkdir", "mv", "rm", "chmod", "stat", "mktemp", "sleep", "kill", "readlink",
    "dirname", "env", "echo", "id", "touch", "wc", "printf", "pwd", "find", "head", "tail", "tr", "cut",
    "tar", "grep",
)  # fmt: skip
# Named for what is in it, so a changed list builds a new image instead of reusing an old one.
IMAGE = "localhost/hermes-tui-test:" + hashlib.sha256(" ".join(_BINARIES).encode()).hexdigest()[:10]


def build_image(engine: str, folder: Path) -> str:
    """The test image (built once per machine; rebuilding is cheap too): this machine's bash, sh and
    coreutils with their libraries, and `MARKER`."""
    if subprocess.run([engine, "image", "exists", IMAGE], capture_output=True).returncode == 0:
        return IMAGE
    root = folder / "rootfs"
    for name in _BINARIES:
        found = shutil.which(name)
        if found is None:
            continue
        real = Path(os.path.realpath(found))
        for source, target in [(real, Path("/usr/bin") / name), *_libraries(real)]:
            dest = root / str(target).lstrip("/")
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not dest.exists():
                shutil.copy2(source, dest)
    for link in ("bin", "lib", "lib64"):
        if (root / "usr" / link).is_dir() and not (root / link).exists():
            (root / link).symlink_to(f"usr/{link}")
    for name in ("tmp", "root", "workspace", "etc"):
        (root / name).mkdir(parents=True, exist_ok=True)
    (root / "tmp").chmod(0o1777)
    (root / "etc" / "passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    (root / "etc" / "group").write_text("root:x:0:\n")
    (root / MARKER.lstrip("/")).write_text("made for the hermes-tui tests\n")
    tar = folder / "rootfs.tar"
    subprocess.run(["tar", "-C", str(root), "-cf", str(tar), "."], check=True)
    done = subprocess.run([engine, "import", str(tar), IMAGE], capture_output=True, timeout=120)
    if done.returncode != 0:
        pytest.skip(f"{engine} import failed here: {done.stderr.decode(errors='replace')[-300:]}")
    return IMAGE


def _libraries(binary: Path) -> list[tuple[Path, Path]]:
    """(file, path in the image) of the shared libraries `binary` loads (ldd's view), links resolved."""
    done = subprocess.run(["ldd", str(binary)], capture_output=True, text=True)
    found = []
    for line in done.stdout.splitlines():
        parts = [p for p in line.split() if p.startswith("/")]
        if parts:
            path = Path(parts[0])
            found.append((Path(os.path.realpath(path)), path))
    return found


def containers_named(engine: str, prefix: str) -> list[str]:
    """Names of the containers (running or not) whose name starts with `prefix`."""
    done = subprocess.run(
        [engine, "ps", "-a", "--format", "{{.Names}} {{.Status}}"], capture_output=True, text=True
    )
    return [line for line in done.stdout.splitlines() if line.startswith(prefix)]


def running_named(engine: str, prefix: str) -> list[str]:
    done = subprocess.run([engine, "ps", "--format", "{{.Names}}"], capture_output=True, text=True)
    return [line for line in done.stdout.splitlines() if line.startswith(prefix)]


def processes_mentioning(text: str) -> list[str]:
    """`pid: command line` of the live processes whose command line contains `text` (an ssh ControlPath
    folder: the master and its clients)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if text in cmdline:
            found.append(f"{pid}: {cmdline}")
    return found
