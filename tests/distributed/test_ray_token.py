"""The Ray token flowrt's local cluster writes is readable by its user only (no Ray
started: Ray's init is replaced by one that writes the token as Ray does)."""

import os
import stat

from flowrt.distributed import ray_cluster


class _FakeRay:
    """Writes ``~/.ray/auth_token`` with the process's umask, as Ray 2.x's init does."""

    def __init__(self):
        self.started = False

    def is_initialized(self):
        return self.started

    def init(self, address=None, **kwargs):
        if address != "local":
            raise ConnectionError("no running Ray instance")
        home = os.path.expanduser("~")
        os.makedirs(os.path.join(home, ".ray"), exist_ok=True)
        with open(os.path.join(home, ".ray", "auth_token"), "w") as f:
            f.write("secret")
        self.started = True


def test_local_cluster_token_is_0600_in_a_0700_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    (tmp_path / ".ray").mkdir(mode=0o755)
    os.chmod(tmp_path / ".ray", 0o755)  # a home's usual mode, whatever the umask
    monkeypatch.setattr(ray_cluster, "ray_module", _FakeRay)
    ray_cluster.connect()
    assert stat.S_IMODE(os.stat(tmp_path / ".ray").st_mode) == 0o700
    assert stat.S_IMODE(os.stat(tmp_path / ".ray" / "auth_token").st_mode) == 0o600
