"""Helpers shared by the benchmark scripts: start servers, run the load generator, read /proc."""
import json, os, re, subprocess, sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(ROOT, "target", "release", "convstate")
ECHO = os.path.join(ROOT, "target", "release", "examples", "echo_server")


SERDE = os.path.join(ROOT, "target", "release", "convstate-serde-frames")


def build(serde_variant=False):
    """Builds the release binary and the echo server; with `serde_variant`, also the binary whose
    state frames go through serde_json (the A/B of the frame writer), copied beside it."""
    if serde_variant:
        subprocess.run(["cargo", "build", "--quiet", "--release", "--bin", "convstate",
                        "--features", "serde-frames"], cwd=ROOT, check=True)
        import shutil
        shutil.copyfile(BIN, SERDE)
        os.chmod(SERDE, 0o755)
    subprocess.run(["cargo", "build", "--quiet", "--release", "--bin", "convstate",
                    "--example", "echo_server"], cwd=ROOT, check=True)


def start(cmd, cpu=None):
    """Starts a server that logs `address=HOST:PORT` and returns (process, address); with `cpu`,
    pinned to that core."""
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                         env={**os.environ, "RUST_LOG": "info", "NO_COLOR": "1"})
    for line in p.stderr:
        m = re.search(r"address=(\S+)", line)
        if m:
            # Drain the rest of the log in the background so the server never blocks on it.
            subprocess.Popen(["cat"], stdin=p.stderr, stdout=subprocess.DEVNULL)
            return p, m.group(1)
    sys.exit(f"{cmd[0]} exited before listening")


def stop(p):
    p.terminate()
    p.wait()


def loadgen(url, sessions, seconds, welcome=True, rate=None, ack=False, cpu=None, pid=None,
            reset_every=None, turns_before=None):
    cmd = [BIN, "loadgen", "--url", url, "--sessions", str(sessions),
           "--duration", f"{seconds}s", "--warmup", "1s"]
    if cpu is not None:
        cmd = ["taskset", "-c", str(cpu)] + cmd
    if pid is not None:
        cmd += ["--server-pid", str(pid)]
    if reset_every is not None:
        cmd += ["--reset-every", str(reset_every)]
    if turns_before is not None:
        cmd += ["--turns-before", str(turns_before)]
    if not welcome:
        cmd.append("--no-welcome")
    if rate:
        cmd += ["--rate", str(rate)]
    if ack:
        cmd.append("--ack")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        return int(re.search(r"VmRSS:\s+(\d+)", f.read()).group(1))


def ms(us):
    return f"{us / 1000:.2f} ms"
