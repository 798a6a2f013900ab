#!/usr/bin/env python3
"""Closes the terminal a command runs in, as closing a terminal window does.

Usage: pty-hangup.py READY_REGEX WAIT_SECONDS COMMAND [ARG...]

COMMAND leads a new session whose controlling terminal is a fresh pseudo-terminal
(its stdin, stdout and stderr). Once its output matches READY_REGEX, the master
side is closed: the kernel hangs the terminal up (SIGHUP to the session leader,
and to the foreground group once the leader has exited), and every later write to
it fails with EIO. This process is a child subreaper, so it also reaps processes
whose parent died first (a shell, npm), and prints one JSON line:
  {"exits": [{"pid", "cmd", "after" (s), "code" or "signal"}], "alive": [cmd...]}
"alive" lists what still ran WAIT_SECONDS after the hang-up (then killed).
Needs no terminal of its own (CI has none).
"""
import ctypes, fcntl, json, os, re, select, signal, sys, termios, time

ready, wait_s, command = re.compile(sys.argv[1].encode()), float(sys.argv[2]), sys.argv[3:]
PR_SET_CHILD_SUBREAPER = 36
ctypes.CDLL(None, use_errno=True).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

master, slave = os.openpty()
leader = os.fork()
if leader == 0:
    os.setsid()
    fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
    for fd in (0, 1, 2):
        os.dup2(slave, fd)
    os.close(master)
    os.close(slave)
    os.execvp(command[0], command)
os.close(slave)


def fail(message, out):
    os.killpg(leader, signal.SIGKILL)
    print(json.dumps({"error": message, "output": out.decode(errors="replace")}))
    sys.exit(2)


out, deadline = b"", time.time() + 120
while not ready.search(out):
    if time.time() > deadline:
        fail("not ready after 120 s", out)
    if select.select([master], [], [], 0.5)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: every process left the terminal
            chunk = b""
        if not chunk:
            fail("the command ended before it was ready", out)
        out += chunk


def session_members():
    members = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[3]) == leader and fields[0] != "Z":  # fields[3]: session id
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    members[int(pid)] = f.read().replace(b"\0", b" ").decode().strip()
        except (OSError, IndexError, ValueError):
            pass
    return members


members = session_members()
os.close(master)  # the window closes
start, exits = time.time(), []
while True:
    try:
        pid, status = os.waitpid(-1, os.WNOHANG)
    except ChildProcessError:  # all reaped
        break
    if pid:
        exit = {"pid": pid, "cmd": members.get(pid, "?"), "after": round(time.time() - start, 2)}
        exit.update({"code": os.WEXITSTATUS(status)} if os.WIFEXITED(status) else {"signal": os.WTERMSIG(status)})
        exits.append(exit)
        continue
    if time.time() - start > wait_s:
        break
    time.sleep(0.05)

alive = session_members()
for pid in alive:
    os.kill(pid, signal.SIGKILL)
for _ in range(100):
    try:
        if os.waitpid(-1, os.WNOHANG)[0] == 0:
            time.sleep(0.05)
    except ChildProcessError:
        break
print(json.dumps({"exits": exits, "alive": list(alive.values())}))
